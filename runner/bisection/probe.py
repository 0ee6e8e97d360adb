"""Measuring one version for the bisection: its own build folder, runs at N=1 and N stored as
ordinary sweep rows labelled VARIANT@VERSION (so `memrun report OUT` shows every version tried),
and the per-task cost from their medians. The CLI gives it the callbacks that print."""

from __future__ import annotations

import dataclasses
import socket
import statistics
from collections.abc import Callable
from typing import Any

from runner import sweep as sweeping
from runner.bisection.search import Probe
from runner.campaign import CampaignSettings
from runner.inputs import SleepSpec
from runner.results import ResultsDir
from runner.results.store import SWEEPS, read_jsonl
from runner.tasks import Variant, chosen, is_built, readiness, registry
from runner.tasks.versionspec import VersionSpec


class Prober:
    """Measures one version at N=1 and N as a small sweep of its own, counting its builds."""

    def __init__(
        self,
        variant: Variant,
        spec: VersionSpec,
        n: int,
        metric: str,
        sleep: SleepSpec,
        out: ResultsDir,
        *,
        timeout: float | None,
        interval: float,
        label: str | None,
        memory_cap: Callable[[], int | None],
        command: str,
        log: Callable[[str], None],
        progress: Callable[[], Any],
        on_probe: Callable[[Probe], None],
        kernel: str | None = None,
    ) -> None:
        """memory_cap: the cap for every run, worked out at the first measurement (under the
        lock); progress: a fresh sweep printer per version (its .progress() and .clear());
        on_probe: each version's figures as they come; kernel: measure each version in a VM of
        this Debian kernel (runner.vm), built here first, its runs labelled LABEL@RELEASE."""
        self.variant, self.spec, self.n, self.metric = variant, spec, n, metric
        self.sleep, self.out, self.timeout, self.interval = sleep, out, timeout, interval
        self.label = label or socket.gethostname()
        self.resolve_cap, self.command = memory_cap, command
        self.log, self.progress, self.on_probe = log, progress, on_probe
        self.kernel = kernel
        self.memory_cap: int | None = None
        self.capped = False
        self.chosen: dict[str, Variant] = {}
        self.sweeps: dict[str, list[str]] = {}
        self.made: dict[str, int] = {}
        self.built: set[str] = set()
        self.up_to_date: set[str] = set()

    def _variant(self, version: str) -> Variant:
        if version not in self.chosen:
            listed = registry.listing(self.variant.folder, self.spec)
            self.log(f"[version] {self.spec.name} {version}: installing into its own build folder")
            self.chosen[version] = chosen.choose(
                self.variant, self.spec, version, listed, log=lambda line: self.log(f"  $ {line}")
            )
        return self.chosen[version]

    def measure(self, version: str, runs: int) -> Probe:
        """The search's measure(): at least `runs` runs at each N for this version, then its probe."""
        if not self.capped:
            self.memory_cap, self.capped = self.resolve_cap(), True
        variant = self._variant(version)
        more = runs - self.made.get(version, 0)
        if more > 0:
            ready = readiness(variant).usable
            fresh = ready and not is_built(variant)
            campaign = CampaignSettings([variant], self.out, interval=self.interval, label=self.label)
            opts = sweeping.SweepOptions(
                campaign,
                ns=[1, self.n],
                sleep=self.sleep,
                repeat=more,
                timeout=self.timeout,
                memory_cap=self.memory_cap,
                command=self.command,
            )
            opts = sweeping.prepare(opts, log=self.log)
            if fresh and not opts.build_errors:
                self.built.add(version)
            elif ready and not opts.build_errors:
                self.up_to_date.add(version)
            if self.kernel is None:
                printer = self.progress()
                end = sweeping.run_sweep(opts, printer.progress())
                printer.clear()
                self.sweeps.setdefault(version, []).append(end["sweep_id"])
            else:
                self.sweeps.setdefault(version, []).extend(self._in_guest(version, more))
            self.made[version] = self.made.get(version, 0) + more
        result = dataclasses.replace(self.probe(version, variant.name), built=version in self.built)
        self.on_probe(result)
        return result

    def _in_guest(self, version: str, runs: int) -> list[str]:
        """The version's runs at N=1 and N made by a sweep in the kernel's guest (built here, its
        choice of version given to the guest with the host's listing); the ids of its sweeps."""
        from runner.vm import guest

        args = ["-r", self.variant.name, "--version", f"{self.spec.name}={version}", "--n", f"1,{self.n}"]
        args += ["--repeat", str(runs), "--sleep", str(self.sleep), "--interval", f"{self.interval * 1000:g}"]
        if self.timeout is not None:
            args += ["--timeout", f"{self.timeout:g}"]
        before = self._sweep_ids()
        assert self.kernel is not None
        # the guest's memory is this machine's cap; its runs' cap is the guest's own (auto)
        memory = guest.memory_for(self.memory_cap)
        guest.run(self.kernel, "sweep", args, self.out, self.label, memory, self.log)
        return sorted(self._sweep_ids() - before)

    def _sweep_ids(self) -> set[str]:
        path = self.out.path / SWEEPS
        return {str(s.get("sweep_id")) for s in read_jsonl(path)} if path.exists() else set()

    def probe(self, version: str, name: str) -> Probe:
        """The version's figures from its stored runs: medians at N=1 and N, their spread."""
        ids = set(self.sweeps.get(version, []))
        rows = [r for r in self.out.existing_rows() if r.get("sweep_id") in ids and r.get("variant") == name]
        counted = [r for r in rows if not r.get("superseded")]
        values = {
            n: [
                float(r[self.metric])
                for r in counted
                if r["n"] == n and r["verdict"] == "valid" and r.get(self.metric)
            ]
            for n in (1, self.n)
        }
        if not values[1] or not values[self.n]:
            failed = [r for r in counted if r["verdict"] != "valid"]
            why = failed[-1].get("reason") if failed else f"no {self.metric} recorded"
            return Probe(version, None, None, None, 0, None, problem=str(why))
        at_1, at_n = statistics.median(values[1]), statistics.median(values[self.n])
        spread = (max(values[self.n]) - min(values[self.n])) / at_n if at_n else None
        return Probe(version, (at_n - at_1) / self.n, at_n, at_1, len(values[self.n]), spread)
