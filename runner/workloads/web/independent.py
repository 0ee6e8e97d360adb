"""The same server driven by an independent open-loop load generator, for comparison with what
memrun reaches: vegeta (github.com/tsenart/vegeta, constant-rate, open loop), installed by module
name through the Go module proxy into build/tools (`go install MODULE@VERSION`), never a
downloaded script.

Why: a maximum rate depends on the whole setup (the server's cgroup, what samples it, how the
client sends), so memrun's achieved rate at saturation is only a figure of the server once a
widely used generator reaches the same on the same server and CPUs. The server here runs as a
user would run it (`taskset -c SERVER_CPUS`, no memrun cgroup, no sampler); vegeta runs on the
client's CPUs with C keep-alive connections and at most C requests in flight (`-max-workers C`),
as memrun's client has one request in flight per connection; it does not follow the 302
(`-redirects -1`). A warm-up attack runs first, unmeasured, as memrun's warm-up does.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from runner.paths import BUILD_DIR
from runner.tasks import Variant

MODULE = "github.com/tsenart/vegeta/v12"
VERSION = "v12.13.0"


class IndependentError(RuntimeError):
    """vegeta could not be installed or run, or the server did not start."""


CPU_V1 = Path("/sys/fs/cgroup/cpu")  # cgroup v1's cpu controller
QUOTA_PERIOD_US = 100_000


class ServerQuota:
    """The server held to a share of a core (cgroup v1's CFS quota), the same way under both load
    generators: while it is open, every process this one started, except the load generators
    (memrun's client, vegeta), is moved into a cpu cgroup of `cores` CPU per period, polled every
    20 ms (a process moved takes its threads, and what it starts later is born inside).

    Why: a server that answers faster than vegeta can send on the client's one core (Go, Node)
    never saturates under vegeta, and then the two rates compare nothing. Capped alike, the
    server saturates under both, and whatever memrun's setup costs it still shows.
    """

    GENERATORS = ("memrun-http", "vegeta")

    def __init__(self, cores: float) -> None:
        if not (CPU_V1 / "cpu.cfs_quota_us").is_file():
            raise IndependentError(
                f"--server-quota needs cgroup v1's cpu controller ({CPU_V1}/cpu.cfs_quota_us); not found here"
            )
        if not 0.01 <= cores <= 1.0:
            raise IndependentError(f"--server-quota takes 0.01 to 1 core, not {cores:g}")
        self.cores = cores
        self.path = CPU_V1 / f"memrun-quota-{os.getpid()}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.moved: set[int] = set()

    def __enter__(self) -> ServerQuota:
        self.path.mkdir(exist_ok=True)
        (self.path / "cpu.cfs_period_us").write_text(str(QUOTA_PERIOD_US))
        (self.path / "cpu.cfs_quota_us").write_text(str(round(self.cores * QUOTA_PERIOD_US)))
        self._thread = threading.Thread(target=self._watch, name="server-quota", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        for pid in (self.path / "cgroup.procs").read_text().split():  # back to where this one is
            with contextlib.suppress(OSError):
                (CPU_V1 / "cgroup.procs").write_text(pid)
        with contextlib.suppress(OSError):
            self.path.rmdir()

    def _watch(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(0.02):
            for child in me.children(recursive=True):
                if child.pid in self.moved:
                    continue
                try:
                    line = " ".join(child.cmdline())
                except psutil.Error:
                    continue
                if any(g in line for g in self.GENERATORS):
                    continue
                with contextlib.suppress(OSError):
                    (self.path / "cgroup.procs").write_text(str(child.pid))
                    self.moved.add(child.pid)


def vegeta_path() -> Path:
    return BUILD_DIR / "tools" / "vegeta"


def ensure_vegeta(log: Any = print) -> Path:
    """vegeta at VERSION in build/tools, installed by `go install` when missing."""
    target = vegeta_path()
    if target.exists():
        return target
    go = shutil.which("go")
    if not go:
        raise IndependentError(
            "vegeta needs the go command to install it: apt-get install golang (or Go 1.22+)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    argv = [go, "install", f"{MODULE}@{VERSION}"]
    log("$ GOBIN=" + str(target.parent) + " " + " ".join(argv))
    proc = subprocess.run(
        argv, env={**os.environ, "GOBIN": str(target.parent)}, capture_output=True, text=True
    )
    if proc.returncode != 0 or not target.exists():
        raise IndependentError(f"go install {MODULE}@{VERSION} failed: {proc.stderr.strip()[-400:]}")
    return target


def installed_version(binary: Path) -> str:
    """The module version the binary was built from (`go version -m`), e.g. v12.13.0."""
    go = shutil.which("go")
    if not go:
        return VERSION
    out = subprocess.run([go, "version", "-m", str(binary)], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "mod" and parts[1] == MODULE:
            return parts[2]
    return VERSION


@dataclass(frozen=True)
class Attack:
    """What vegeta measured in its window: answers per second (302s over the attack and its wait
    for the last answers), its latency percentiles (from the send: vegeta does not correct for
    coordinated omission at saturation), and its own CPU share of the client's CPUs."""

    rate: int
    answered: int
    throughput: float
    p50_ms: float
    p99_ms: float
    client_busy: float
    codes: dict[str, int]
    server_cpu_s: float | None


def request_headers(binary: Path | None = None) -> list[str]:
    """The header lines vegeta sends after Host, as it sends them: one request of it caught on a
    socket of ours (its X-Vegeta-Seq counts requests; the one caught says 0).

    Why: a server's CPU per request grows with the headers it parses, and a saturated server's rate
    is one over that CPU, so memrun's client sends these too (`--header`) when the two are
    compared: both then cost the server alike."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(30)
        port = listener.getsockname()[1]
        attack = subprocess.Popen(
            [
                str(binary or ensure_vegeta()),
                "attack",
                "-rate",
                "1/1s",
                "-duration",
                "1s",
                "-redirects",
                "-1",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert attack.stdin is not None
            attack.stdin.write(f"GET http://127.0.0.1:{port}/\n".encode())
            attack.stdin.close()
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(30)
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    head += chunk
                conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: /Renard-1.png\r\nContent-Length: 0\r\n\r\n")
        except OSError as e:
            raise IndependentError(f"vegeta's request could not be caught: {e}") from None
        finally:
            attack.wait(timeout=30)
    lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    if not lines or not lines[0].startswith("GET / HTTP/1.1"):
        raise IndependentError(f"vegeta sent no `GET / HTTP/1.1`: {lines[:1]}")
    return [line for line in lines[1:] if line.split(":", 1)[0].lower() != "host"]


def _listening(port: int, within_s: float = 120.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.05)
    return False


def _cpu_s(pid: int) -> float | None:
    """A process's user + system CPU seconds (/proc/PID/stat)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def attack(
    variant: Variant,
    c: int,
    rate: int,
    warmup_s: float,
    window_s: float,
    server_cpus: str,
    client_cpus: str,
) -> Attack:
    """Start the variant's server on server_cpus, attack it with vegeta from client_cpus (a warm-up,
    then the measured window), stop the server; the window's figures."""
    from runner.execute import command
    from runner.workloads.web import IMAGES
    from runner.workloads.web.execute import free_port

    binary = ensure_vegeta()
    port = free_port()
    argv, env, _ = command(variant, c, 10, None, None, port=port, images=IMAGES)
    server = subprocess.Popen(
        ["taskset", "-c", server_cpus, *argv],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        if not _listening(port):
            raise IndependentError(f"{variant.name}'s server did not listen on {port} within 120 s")
        time.sleep(0.25)
        target = f"GET http://127.0.0.1:{port}/\n".encode()
        base = ["taskset", "-c", client_cpus, str(binary), "attack", "-rate", f"{rate}/1s"]
        base += [
            "-connections",
            str(c),
            "-max-connections",
            str(c),
            "-max-workers",
            str(c),
            "-redirects",
            "-1",
        ]
        if warmup_s > 0:
            subprocess.run(
                [*base, "-duration", f"{warmup_s:g}s"], input=target, stdout=subprocess.DEVNULL, check=True
            )
        before = _cpu_s(server.pid)
        mine = resource.getrusage(resource.RUSAGE_CHILDREN)  # the attack's CPU, once it is reaped
        t0 = time.monotonic()
        proc = subprocess.Popen(
            [*base, "-duration", f"{window_s:g}s"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        out, _ = proc.communicate(target)
        wall = time.monotonic() - t0
        after = _cpu_s(server.pid)
        theirs = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (theirs.ru_utime + theirs.ru_stime) - (mine.ru_utime + mine.ru_stime)
        report = subprocess.run(
            [str(binary), "report", "-type", "json"], input=out, capture_output=True, check=True
        ).stdout
    finally:
        os.killpg(server.pid, 9)
        server.wait()
    got = json.loads(report)
    codes = {str(k): int(v) for k, v in (got.get("status_codes") or {}).items()}
    ncpu = len(client_cpus.split(","))
    return Attack(
        rate=rate,
        answered=codes.get("302", 0),
        throughput=float(got.get("throughput") or 0.0),
        p50_ms=float(got["latencies"]["50th"]) / 1e6,
        p99_ms=float(got["latencies"]["99th"]) / 1e6,
        client_busy=round(used / wall / ncpu, 3) if wall > 0 else 0.0,
        codes=codes,
        server_cpu_s=None if before is None or after is None else round(after - before, 3),
    )
