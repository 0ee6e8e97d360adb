"""Crafted results directories (runs.jsonl + sweeps.jsonl) for report, plot and compare tests."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

VERSIONS = {
    "go": {"go": "go version go1.26.8 linux/amd64", "build": "go-build"},
    "rust-tokio": {"rustc": "rustc 1.95.0 (59807616e 2026-04-14)", "tokio": "1.54.1", "build": "cargo"},
    "python": {"python": "Python 3.11.7", "build": "py_compile"},
}


def write_results(
    out: Path,
    host: str,
    cells: dict[tuple[str, int], Iterable[float | None]],
    *,
    sweep_id: str | None = None,
    label: str | None = None,
    versions: dict[str, dict[str, str]] | None = None,
    reasons: dict[tuple[str, int], str] | None = None,
    fingerprint: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    variant_info: dict[str, dict[str, str]] | None = None,
    workload: str | None = None,
    kernel: dict[tuple[str, int], float] | None = None,
    ready: dict[tuple[str, int], list[float]] | None = None,
) -> Path:
    """One sweep on `host`: a run per value (MB of peak RSS; None: a failed run with its reason).

    fingerprint: the sweep's machine fingerprint (none: a sweep written before they were recorded);
    env: settings given with `sweep --env`, stored in every run; variant_info: as sweeps record it;
    workload: stored in the sweep and every run (none: written before workloads existed); kernel:
    MB of the cgroup's kernel part per cell (cgroup_breakdown), and a load client with it; ready:
    each run's spawn time per cell (else 0.5 s)."""
    out.mkdir(parents=True, exist_ok=True)
    sweep_id = sweep_id or f"sweep-{host}"
    versions = {**VERSIONS, **(versions or {})}
    meta: dict[str, Any] = {
        "sweep_id": sweep_id,
        "event": "start",
        "started_at": "2026-11-20T10:00:00+0000",
        "host": host,
        "cpu_model": f"{host} CPU",
        "cpus": 4,
        "ram_bytes": 16_000_000_000,
        "kernel": "6.1.0",
        "versions": {v: versions.get(v, {}) for v, _ in cells},
        "command": f"memrun sweep --n 1,1e4 --repeat 3 --out {out.name}",
    }
    if label:
        meta["label"] = label
    if fingerprint is not None:
        meta["fingerprint"] = fingerprint
    if variant_info is not None:
        meta["variant_info"] = variant_info
    if workload is not None:
        meta["workload"] = workload
    rows = []
    for (variant, n), values in cells.items():
        for repeat, value in enumerate(values):
            ok = value is not None
            row = {
                "sweep_id": sweep_id,
                "run_id": f"{sweep_id}-{variant}-{n}-{repeat}",
                "variant": variant,
                "n": n,
                "repeat": repeat,
                "sleep_s": 10.0,
                "command": f"build/{variant} {n} 10",
                "verdict": "valid" if ok else "failed",
                "code": "ok" if ok else "thread-limit",
                "reason": None if ok else (reasons or {}).get((variant, n), "thread limit: kernel.pid_max"),
                "remedy": None if ok else "sysctl -w kernel.pid_max=4194304",
                "superseded": False,
                "versions": versions.get(variant, {}),
                "started_at": "2026-11-20T10:00:00+00:00",
                "ready_s": (ready[(variant, n)][repeat] if ready and (variant, n) in ready else 0.5)
                if ok
                else None,
                "wall_s": 10.1,
                "peak_rss": None if value is None else int(value * 1e6),
                "cgroup_peak": None if value is None else int(value * 1.5e6),
                "sampled_peak_rss": None if value is None else int(value * 1e6),
            }
            if label:
                row["label"] = label
            if env:
                row["env_override"] = env
            if workload is not None:
                row["workload"] = workload
            if kernel and (variant, n) in kernel and ok:
                kernel_bytes = int(kernel[(variant, n)] * 1e6)
                row["cgroup_breakdown"] = {"anon": int(value * 1e6), "kernel": kernel_bytes}
                row["client"] = {
                    "summary": {"connected": n, "dropped": 0, "connect_s": 0.25},
                    "cgroup_peak": int(4e3 * n + 1e6),
                    "user_s": 0.01,
                    "sys_s": 0.02,
                }
            rows.append(row)
    with open(out / "runs.jsonl", "a") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    with open(out / "sweeps.jsonl", "a") as f:
        f.write(json.dumps(meta) + "\n")
    return out


# go at 10k: the laptop's three runs and the cloud VM's; one median over all six would be 34.2 MB.
LAPTOP = {("go", 1): [2.0, 2.1, 2.0], ("go", 10_000): [28.0, 28.5, 28.2], ("python", 1): [20.0]}


CLOUD = {("go", 1): [2.4, 2.4, 2.5], ("go", 10_000): [40.0, 41.0, 40.5], ("python", 1): [22.0]}
