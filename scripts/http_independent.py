"""Benchmark (not a test): memrun's achieved rate at saturation against an independent open-loop
generator's (vegeta, runner.workloads.web.independent) on the same server and CPUs.

For each variant: one memrun http run at C connections and rate R (its own setup: the server
in its cgroup, sampled, memrun's client), then vegeta against the same server started as a user
would start it (taskset, nothing else), each with a warm-up and a measured window; prints both
rates, their ratio, each client's CPU share and the server's CPU per 1,000 answers under each
(on a busy machine the server gets a varying share of its CPU, and the CPU per answer is the
figure that still compares). R must
saturate the server (a rate it holds measures nothing); a client near 100 % busy is the limit,
not the server. Machines are noisy: alternate, repeat, read the medians.

With --server-quota CORES (cgroup v1), the server is held to that share of its core under both
generators alike (runner.workloads.web.independent.ServerQuota): a server that answers faster
than vegeta can send from one core (Go, Node) saturates under both only then.

memrun's client sends the header lines vegeta sends (caught from vegeta itself at the start,
request_headers), so that a request costs the server alike under both; --own-request sends
memrun's own (Host alone) instead. --out FILE appends each window as a JSON line
(runner.workloads.web.comparison), the data docs/http.md's table is derived from.

  .venv/bin/python scripts/http_independent.py python go node [--c 100] [--rate 50k] [--repeat 3]
      [--server-quota 0.4] [--own-request] [--out plots/http-independent/windows.jsonl]
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner import tasks
from runner.execute import Settings, execute
from runner.hostinfo import cpu_model
from runner.inputs import parse_n
from runner.workload import get as get_workload
from runner.workloads.web.comparison import MEMRUN, Window, append, table
from runner.workloads.web.independent import (
    ServerQuota,
    attack,
    ensure_vegeta,
    installed_version,
    request_headers,
    vegeta_path,
)
from runner.workloads.web.params import duration, split_cpus, text


def memrun_window(
    variant: tasks.Variant, c: int, rate: int, warmup: float, window: float, header: list[str] | None
) -> tuple[float, float, float | None]:
    """(answers/s in the window, the client's busy share, server CPU ms per 1k) of one memrun run."""
    params = {"rate": [rate], "warmup": warmup, "window": window, "server_cpus": [], "header": header}
    ex = execute(variant, c, 10, Settings(params=params))
    if not ex.client or not ex.client.get("phases"):
        raise SystemExit(f"{variant.name}: memrun's run did not measure a phase: {ex.judged.reason}")
    ph = ex.client["phases"][0]
    cpu = (ph.get("server") or {}).get("cpu_per_1k_s")
    # cpu_share: the client's CPU over the window, as the independent generator's is measured
    # (client_busy counts the client's work in its loop, which vegeta has no figure of)
    return float(ph["achieved_rate"]), float(ph.get("cpu_share") or 0), None if cpu is None else cpu * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--c", default="100")
    ap.add_argument("--rate", default="50k")
    ap.add_argument("--warmup", default="5s")
    ap.add_argument("--window", default="20s")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--server-quota", type=float, default=None, help="cores the server may use (cgroup v1)")
    ap.add_argument(
        "--own-request",
        action="store_true",
        help="memrun's client sends its own request (Host alone), not vegeta's header lines",
    )
    ap.add_argument("--out", type=Path, default=None, help="append each window as a JSON line to this file")
    args = ap.parse_args()
    c, rate = parse_n(args.c), parse_n(args.rate)
    warmup, window = duration(args.warmup), duration(args.window)
    ensure_vegeta()
    vegeta = f"vegeta {installed_version(vegeta_path())}"
    header = None if args.own_request else request_headers()
    server, client = split_cpus([])
    quota = f", held to {args.server_quota:g} of a core (CFS quota)" if args.server_quota else ""
    print(
        f"{vegeta}; C = {c}, R = {rate:,}/s, warm-up {warmup:g} s, "
        f"window {window:g} s; server CPUs {text(server)}{quota}, client CPUs {text(client)}; "
        f"memrun's client sends {'Host alone' if header is None else 'Host and ' + ' | '.join(header)}",
        flush=True,
    )
    machine = f"{platform.node()}, {cpu_model() or '?'}, {platform.release()}"

    def held() -> contextlib.AbstractContextManager[object]:
        """The server under the quota while it is open, if one was asked for."""
        return ServerQuota(args.server_quota) if args.server_quota else contextlib.nullcontext()

    def measured(variant: str, generator: str, answers: float, busy: float, cpu: float | None) -> Window:
        w = Window(
            variant=variant,
            generator=generator,
            c=c,
            rate=rate,
            warmup_s=warmup,
            window_s=window,
            server_quota=args.server_quota,
            header=header,
            answers_per_s=round(answers, 1),
            client_busy=busy,
            server_cpu_ms_per_1k=None if cpu is None else round(cpu, 3),
            machine=machine,
            at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        print(f"  {variant} {generator}: {answers:,.0f} answers/s, client busy {busy:.2f}", flush=True)
        if args.out:
            append(args.out, w)
        return w

    every = tasks.load_all()
    windows: list[Window] = []
    for name in args.variants:
        variant = every[name].under(get_workload("http"))
        for _ in range(args.repeat):  # alternate, so that the machine's noise falls on both
            with held():
                windows.append(
                    measured(name, MEMRUN, *memrun_window(variant, c, rate, warmup, window, header))
                )
            with held():
                v = attack(variant, c, rate, warmup, window, text(server), text(client))
            cpu = v.server_cpu_s / v.answered * 1e6 if v.server_cpu_s is not None and v.answered else None
            windows.append(measured(name, vegeta, v.throughput, v.client_busy, cpu))
    print(table(windows), end="")


if __name__ == "__main__":
    main()
