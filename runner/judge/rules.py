"""The rules that judge a run, each a function of the run that returns a Verdict or None, tried in
runner.judge.verdict.RULES' order. Generic only: could it start, a timeout, a signal, an OOM kill,
the limits arithmetic that names which kernel limit a thread count reached and which descriptor
limit a run ran out of, and the run's own proof of `ready`. The OS's own words are known here; a
runtime's are matched from its manifest's failure table.
"""

from __future__ import annotations

import math
import re

from runner.judge.run import Verdict, _Run, message_line
from runner.limits import files, futex
from runner.limits.hit import round_up
from runner.limits.host import HEADROOM, LABELS, NEAR, int_value
from runner.limits.predict import predict, thread_capacities
from runner.units import MIB, size

# What the OS itself says when it refuses a thread, whatever the runtime: clone() -> EAGAIN (PIDs,
# threads-max, RLIMIT_NPROC, pids.max), and an mmap of a stack or its guard -> ENOMEM.
THREAD_FAILURE = re.compile(r"Resource temporarily unavailable|(?:thread|stack).*Cannot allocate memory")
OUT_OF_MEMORY = re.compile(r"out of memory|Cannot allocate \d+ bytes", re.IGNORECASE)
# What the OS says when a process is out of descriptors (strerror of EMFILE; ENFILE's adds "in
# system"), whatever the runtime; a runtime's own wording is a manifest's `means = "fd-limit"`.
FD_FAILURE = re.compile(r"Too many open files")
# Once a run is known to be out of descriptors, which limit: the system-wide one shows as ENFILE's
# strerror (in any case: some runtimes lower it) or the errno's own name.
SYSTEM_WIDE = re.compile(r"too many open files in system|\bENFILE\b", re.IGNORECASE)


def _limits_reached(run: _Run) -> list[tuple[str, str]]:
    """The limits the thread count was at when the run stopped, closest first: (key, explanation)."""
    reached = run.threads
    near = []
    for key, (capacity, how) in thread_capacities(run.per_task, run.limits).items():
        if capacity > 0 and reached >= NEAR * capacity:
            near.append((reached / capacity, key, how))
    near.sort(reverse=True)
    # "Cannot allocate memory" comes from mmap: mappings, not PIDs, ran out.
    if "Cannot allocate memory" in run.stderr:
        near.sort(key=lambda item: item[1] != "max_map_count")
    return [(key, how) for _, key, how in near]


def _thread_remedy(run: _Run, keys: list[str]) -> str:
    """Commands for the limits that were reached, then for any other limit N would hit next.

    Lifting only the limit that stopped this run would just move the failure to the next one
    (100k Rust threads: vm.max_map_count at 16k, then kernel.pid_max at 32k).
    """
    per_task = {"threads": 1, **run.per_task}  # a thread failure means at least one thread per task
    hits = {hit.key: hit for hit in predict(run.n, per_task, run.limits)}
    parts = [
        hits[key].remedy if key in hits else f"raise {LABELS.get(key, key)} (see memrun limits --n {run.n})"
        for key in keys
    ]
    parts += [hit.remedy for key, hit in hits.items() if key not in keys and hit.target is not None]
    return "; ".join(parts) or f"see `memrun limits --n {run.n}`"


def not_started(run: _Run) -> Verdict | None:
    if not run.result.error:
        return None
    return Verdict(
        "failed",
        "not-started",
        f"toolchain missing / cannot start: {run.result.error}",
        "run `memrun doctor` and `memrun build`",
    )


def interrupted(run: _Run) -> Verdict | None:
    if not run.result.interrupted:
        return None
    return Verdict("failed", "interrupted", "interrupted by the user (Ctrl-C)", None)


def exit_stalled(run: _Run) -> Verdict | None:
    """Stopped by memrun where its exit stalled (a capacity probe's watch, runner.capacity.stall):
    `ready N` came, every task waited its sleep under the cap, and then its threads stopped
    ending. Not a figure for a sweep (it did not end); for a capacity, a fit. A run OOM-killed
    on its way there did not fit: the cap rules judge it."""
    r = run.result
    if r.stopped_by != "exit-stalled" or r.cgroup_oom_kills:
        return None
    return Verdict(
        "invalid",
        "exit-stalled",
        f"stopped {r.wall_s:.0f} s in, where its exit stalled: `ready {run.n}` came and every task "
        f"waited its {run.sleep_s:g} s sleep under the cap",
        futex.remedy(max(run.threads, run.n)),
    )


CAP_NEAR = 0.95  # a failed run whose cgroup peak came this close to its cap was stopped by it


def capped(run: _Run) -> Verdict | None:
    """The run's own memory cap stopped it: OOM-killed in its cgroup, or allocations (thread stacks,
    kernel memory) refused at the cap so it failed or stalled. Checked before the thread and
    timeout rules, because at the cap their symptoms are only consequences."""
    r = run.result
    cap = r.memory_cap
    if not cap or (r.exit_code == 0 and not r.timed_out):
        return None
    peak = r.cgroup_peak or 0
    if not (r.cgroup_oom_kills or peak >= CAP_NEAR * cap):
        return None
    how = "timed out" if r.timed_out else f"killed by {r.signal}" if r.signal else f"exit {r.exit_code}"
    kills = f", {r.cgroup_oom_kills} OOM kill(s) in its cgroup" if r.cgroup_oom_kills else ""
    return Verdict(
        "failed",
        "out-of-memory",
        f"out of memory (capped at {size(cap)}): {how}, cgroup peak {size(peak)}{kills}, "
        f"{run.threads:,} threads at most",
        "N tasks need more than this machine can spare: run fewer, or on a larger machine "
        "(--memory-cap SIZE moves the cap; it keeps memrun and the host alive)",
    )


def _run_nofile(run: _Run) -> tuple[tuple[int | None, str], bool]:
    """The RLIMIT_NOFILE the run's program had, where it came from, and whether memrun set it: under
    a workload whose units hold descriptors (connections) the value memrun set (a function of N and
    the limits), else the soft limit it inherited from memrun."""
    own = run.workload.run_nofile(run.n, run.limits)
    if own is not None:
        return own, True
    return (int_value(run.limits, "nofile_soft"), "inherited from memrun"), False


def fd_limit(run: _Run) -> Verdict | None:
    """Out of file descriptors: EMFILE (the run's RLIMIT_NOFILE) or ENFILE (fs.file-max).

    Checked before the timeout: a server whose accept() keeps failing with EMFILE never says
    `ready`, and the timeout is only the consequence. A run that still did what it should (a
    runtime that retried past a transient EMFILE) is judged by the later rules.
    """
    r = run.result
    if r.exit_code == 0 and not r.timed_out and r.ready_n == run.n:
        return None
    found = run.matched("fd-limit")
    if not (found or FD_FAILURE.search(run.stderr)):
        return None
    outcome = "timed out" if r.timed_out else f"killed by {r.signal}" if r.signal else f"exit {r.exit_code}"
    tasks = run.workload.words.noun
    if SYSTEM_WIDE.search(run.stderr):
        limit = int_value(run.limits, "file_max")
        open_now = int_value(run.limits, "files_open")
        target = round_up(2 * run.n + (open_now or 0) + files.SERVER_SPARE + files.CLIENT_SPARE + HEADROOM)
        which = f"fs.file-max ({_count(limit)} file handles system-wide, {_count(open_now)} open now; ENFILE)"
        remedy = f"--raise-limits (root), or sysctl -w fs.file-max={target}"
    else:
        (limit, origin), set_by_memrun = _run_nofile(run)
        which = f"RLIMIT_NOFILE of the run ({_count(limit)}, {origin}; EMFILE)"
        needed = run.n + files.SERVER_MIN_SPARE
        if not set_by_memrun:
            target = files.wanted(max(needed, 2 * (limit or 0)), 0)
            remedy = f"raise it in the shell that starts memrun (ulimit -n {target}): sleep runs inherit it"
        elif limit is not None and limit >= needed:
            remedy = (
                f"the program held more than {limit:,} descriptors for {run.n:,} connections: more than "
                "one per connection, or it set a lower limit of its own; check it with `ls /proc/PID/fd`"
            )
        else:
            remedy = files.remedy(needed, run.limits)
    reason = f"fd limit: {which} reached at N = {run.n:,} {tasks} ({outcome})"
    message = run.fill("{message}")
    if found and found.reason:
        reason = f"{run.fill(found.reason)}: {reason}"
    elif message:
        reason = f"{reason}: {message}"
    if found and found.remedy:
        remedy = run.fill(found.remedy) or remedy
    return Verdict("failed", found.code if found else "fd-limit", reason, remedy)


def _count(value: int | None) -> str:
    return "unreadable" if value is None else f"{value:,}"


def not_ready_in_time(run: _Run) -> Verdict | None:
    """Stopped at its readiness deadline (a capacity probe, or a sweep cell that meets a thread
    limit here): no `ready N` within the sleep, so the N tasks were not all alive at once, whatever
    would have followed. Where N tasks cannot all exist under the limits here, it says which: no
    sleep would help there."""
    r = run.result
    if r.ready_deadline_s is None:
        return None
    reason = (
        f"no `ready {run.n}` within the {run.sleep_s:g} s sleep: stopped at {r.wall_s:.1f} s with "
        f"{run.threads:,} threads at most, since the {run.n:,} tasks were not all alive in time"
    )
    remedy = "a longer sleep, if spawning was still progressing (memrun inspect shows it)"
    reached = _limits_reached(run)
    blocking = [hit for hit in predict(run.n, run.per_task, run.limits) if hit.target is not None]
    if reached:
        keys = [key for key, _ in reached]
        reason += f", at {LABELS[keys[0]]}"
        remedy = _thread_remedy(run, keys)
    elif blocking:
        reason += "; N also exceeds " + ", ".join(hit.limit for hit in blocking)
        remedy = "--raise-limits (root): under these limits no sleep lets N tasks exist at once"
    return Verdict("invalid", "spawn-outlasted-sleep", reason, remedy)


def timed_out(run: _Run) -> Verdict | None:
    r = run.result
    if not r.timed_out:
        return None
    ready = f"`ready {r.ready_n}` after {r.ready_s:.1f} s" if r.ready_s is not None else "no `ready` line"
    reason = f"timeout after {r.wall_s:.0f} s: {run.threads:,} threads at most, {ready}"
    # every task alive (`ready N`): its threads were all created, so no thread limit stopped it
    reached = _limits_reached(run) if r.ready_n != run.n else []
    if reached:
        reason += f"; threads were at {LABELS[reached[0][0]]} ({reached[0][1]})"
        return Verdict("failed", "timeout", reason, _thread_remedy(run, [k for k, _ in reached]))
    remedy = "the program was still starting tasks: give a longer --timeout" if r.ready_s is None else None
    return Verdict("failed", "timeout", reason, remedy)


def runtime_limit(run: _Run) -> Verdict | None:
    """A limit of the runtime itself, as its manifest describes it (reason and remedy templates)."""
    found = run.matched("runtime-limit")
    if found is None:
        return None
    return Verdict("failed", found.code, run.fill(found.reason) or found.code, run.fill(found.remedy))


def thread_limit(run: _Run) -> Verdict | None:
    r = run.result
    found = run.matched("thread-limit")
    if r.exit_code == 0 or not (found or THREAD_FAILURE.search(run.stderr)):
        return None
    reached = _limits_reached(run)
    keys = [key for key, _ in reached]
    if reached:
        which = LABELS[keys[0]]
        why = reached[0][1] + (f"; also near {', '.join(LABELS[k] for k in keys[1:])}" if keys[1:] else "")
    elif "Cannot allocate memory" in run.stderr:
        which, why = "probably vm.max_map_count", "a thread stack mapping failed with ENOMEM"
        keys = ["max_map_count"]
    else:
        which, why = "unknown limit", "no limit read here is near the threads reached"
    outcome = f"killed by {r.signal}" if r.signal else f"exit {r.exit_code}"
    reason = f"thread limit: {which} ({run.threads:,} threads reached, {why}; {outcome})"
    if found and found.reason:
        reason = f"{run.fill(found.reason)}: {reason}"
    remedy = run.fill(found.remedy) if found and found.remedy else _thread_remedy(run, keys)
    return Verdict("failed", found.code if found else "thread-limit", reason, remedy)


def out_of_memory(run: _Run) -> Verdict | None:
    r = run.result
    peak = max(r.cgroup_peak or 0, r.peak_rss or 0)
    # the tightest bound the run had: its own cap, memrun's cgroup's limit, or the machine
    caps = (r.memory_cap, int_value(run.limits, "mem_total"), int_value(run.limits, "mem_cgroup_max"))
    bounds = [b for b in caps if b]
    near_limit = (r.signal == "SIGKILL" and bool(bounds) and peak >= 0.8 * min(bounds)) or bool(
        r.cgroup_oom_kills
    )
    found = run.matched("out-of-memory")
    said_so = (r.signal or r.exit_code) and (found or OUT_OF_MEMORY.search(run.stderr))
    if not (near_limit or said_so):
        return None
    detail = f"peak {peak / MIB:,.0f} MiB" + (f" of {min(bounds) / MIB:,.0f} MiB" if bounds else "")
    how = f"killed by {r.signal}" if r.signal else f"exit {r.exit_code}"
    reason = f"out of memory: {how}, {detail}"
    if found and found.reason:
        reason = f"{run.fill(found.reason)}: {reason}"
    remedy = "run fewer tasks or on a machine with more memory"
    if found and found.remedy:
        remedy = run.fill(found.remedy) or remedy
    return Verdict("failed", found.code if found else "out-of-memory", reason, remedy)


def signal(run: _Run) -> Verdict | None:
    r = run.result
    if not r.signal:
        return None
    last = message_line(r.stderr_tail)
    hint = " (the OOM killer or another process: see dmesg)" if r.signal == "SIGKILL" else ""
    return Verdict("failed", "signal", f"crashed by {r.signal}{hint}" + (f": {last}" if last else ""), None)


def nonzero_exit(run: _Run) -> Verdict | None:
    r = run.result
    if r.exit_code == 0:
        return None
    last = message_line(r.stderr_tail)
    return Verdict("failed", "exit", f"exit {r.exit_code}" + (f": {last}" if last else ""), None)


def no_ready(run: _Run) -> Verdict | None:
    if run.result.ready_n is not None:
        return None
    return Verdict(
        "invalid",
        "no-ready",
        "no readiness line: exit 0 but no `ready N` on stdout, so nothing shows all N were alive",
        "the program must print `ready N` once all N tasks are spawned (tasks/README.md)",
    )


def ready_mismatch(run: _Run) -> Verdict | None:
    if run.result.ready_n == run.n:
        return None
    return Verdict(
        "invalid",
        "ready-mismatch",
        f"the program said `ready {run.result.ready_n}` but {run.n} tasks were asked for",
        "check how the program parses N",
    )


def ended_before_sleep(run: _Run) -> Verdict | None:
    """Exit 0 and `ready N`, but sooner than the sleep: no task can have slept it, so whatever
    `ready` claimed, the tasks did not wait (a program that prints and exits at once)."""
    r = run.result
    if not run.sleep_s or r.wall_s >= run.sleep_s:
        return None
    return Verdict(
        "invalid",
        "ended-before-sleep",
        f"the run ended after {r.wall_s:.2f} s, before its {run.sleep_s:g} s sleep could: "
        "its tasks did not wait",
        "each task must wait the whole sleep and the program exit only when all have (tasks/README.md)",
    )


def spawn_outlasted_sleep(run: _Run) -> Verdict | None:
    spawn = run.result.ready_s
    if spawn is None or spawn <= run.sleep_s:
        return None
    reason = (
        f"spawning took {spawn:.1f} s, longer than the {run.sleep_s:g} s sleep: "
        f"the {run.n} tasks were never all alive at once"
    )
    remedy = f"use --sleep auto or --sleep {math.ceil(2 * spawn)}"
    reached = _limits_reached(run)
    blocking = [hit for hit in predict(run.n, run.per_task, run.limits) if hit.target is not None]
    if reached:
        # A runtime that waits for a thread to end before starting the next (the JVM under pid_max)
        # is slow because of the limit: a longer sleep would only make it fail outright.
        keys = [key for key, _ in reached]
        reason += f"; threads peaked at {run.threads:,}, at {LABELS[keys[0]]}"
        remedy = f"{_thread_remedy(run, keys)}; then {remedy}"
    elif blocking:
        # Not stopped by a limit yet (threads peaked below it), but N tasks cannot all exist here:
        # a longer sleep alone would end at the limit, so --sleep auto does not re-run it.
        reason += f"; threads peaked at {run.threads:,}, and N also exceeds " + ", ".join(
            hit.limit for hit in blocking
        )
        remedy = f"--raise-limits (root), then --sleep {math.ceil(2 * spawn)}"
    return Verdict("invalid", "spawn-outlasted-sleep", reason, remedy)
