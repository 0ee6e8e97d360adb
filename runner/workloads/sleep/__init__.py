"""The sleep workload, the 2023 article's: N tasks that each sleep, all waiting at once (tasks/README.md,
"Program protocol"). The default, and the workload of every row stored before there were others."""

from __future__ import annotations

from runner.workload import Words, Workload, register


class Sleep(Workload):
    name = "sleep"
    words = Words("tasks", "task", "task", "concurrent tasks", "sleep", "spawn", "against N")
    package = "runner.workloads.sleep"
    about = "N tasks that sleep (the 2023 article's workload)"
    overlaps = True  # a hold is N tasks asleep: the CPU idles, the figure is the tree's own
    validity = (
        "A run is a figure only if the program exited 0 and printed its `ready N` line, with the right "
        "N, before its sleep ran out: only then were all N tasks alive at once. Any other run is kept "
        "as a row with its verdict (*invalid*: it ran but proves nothing; *failed*), the reason and a "
        "remedy, and is shown as such, never as a zero. Repeats of a cell give the median and (min–max); "
        "runs of different labels (machines) or toolchain versions never share a median."
    )
    program_html = (
        "Each task program takes <code>N [SLEEP_SECONDS]</code>, spawns N tasks that each sleep, prints "
        "<code>ready N</code> once all N are in their wait, waits for all and exits 0. memrun starts it "
        "in its own process group and memory cgroup and records, per run:"
    )

    def page_title(self, metric_title: str) -> str:
        return f"{metric_title} of N {self.words.title}"

    @property
    def figure_prefix(self) -> str:
        return ""  # the article's figures keep their names


SLEEP = register(Sleep())
