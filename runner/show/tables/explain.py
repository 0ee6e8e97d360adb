"""`memrun explain` as Markdown: where each byte of a task goes (runner.analysis.explain), one row
per variant and N, in KiB per task, each view's parts then their sum, the measured figure and the
unattributed gap; and the runtime's own books beside memrun's parts."""

from __future__ import annotations

from runner.analysis.explain import PARTS_TITLE, RSS_PARTS, TOLERANCE, V1_KERNEL_OTHER, BooksView, Split, View
from runner.units import KIB

KERNEL_KEYS = ("kernel_stack", "pagetables", "slab", "sock", "kernel_other")


def kib(value: float | None) -> str:
    return "–" if value is None else f"{value / KIB:,.2f}"


MISS = "⚠"


def misses(view: View | None) -> bool:
    """A view whose parts do not add up to its measured figure within TOLERANCE: a finding."""
    return view is not None and view.measured is not None and not view.explained


def gap(view: View | None) -> str:
    """The unattributed part: KiB and its share of the measured figure, flagged when it is a miss."""
    if view is None or view.unattributed is None:
        return "–"
    share = f" ({view.unattributed / view.measured:+.1%})" if view.measured else ""
    return f"{view.unattributed / KIB:,.2f}{share}" + (f" {MISS}" if misses(view) else "")


def misses_line(splits: list[Split]) -> str | None:
    """The splits that do not add up, named: what the table's flags mean."""
    rss = [f"{s.variant} at {s.n:,}" for s in splits if misses(s.rss)]
    cg = [f"{s.variant} at {s.n:,}" for s in splits if misses(s.cgroup)]
    if not rss and not cg:
        return None
    named = "; ".join(
        f"{view}: {', '.join(names)}" for view, names in (("RSS", rss), ("cgroup", cg)) if names
    )
    return (
        f"{MISS} {len({*rss, *cg})} of {len(splits)} splits do not add up: their parts miss the "
        f"measured figure by more than {TOLERANCE:.0%} ({named}). The gap is memory the snapshot at "
        "the hold did not see (a peak reached before or after it) or memory no part reads; such a "
        "split is a finding, not an explanation."
    )


def splits_table(splits: list[Split]) -> str:
    """One row per (variant, N): the RSS view's parts, sum, peak and gap; then the cgroup view's."""
    v1 = any(
        s.cgroup and any(k == "kernel_other" and t == V1_KERNEL_OTHER for k, t, _ in s.cgroup.parts)
        for s in splits
    )
    kernel = [
        k for k in KERNEL_KEYS if any(s.cgroup and any(p[0] == k for p in s.cgroup.parts) for s in splits)
    ]
    head = [
        "variant",
        "N",
        *(t for _, t in RSS_PARTS),
        "= RSS at hold",
        "peak RSS",
        "unattributed",
        "user pages charged",
        *(V1_KERNEL_OTHER if v1 and k == "kernel_other" else PARTS_TITLE[k] for k in kernel),
        "= cgroup at hold",
        "cgroup peak",
        "unattributed ",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
    for s in splits:
        rss = {k: p for k, _, p in s.rss.parts}
        cg = {k: p for k, _, p in s.cgroup.parts} if s.cgroup else {}
        row = [
            s.variant,
            f"{s.n:,}",
            *(kib(rss.get(k)) for k, _ in RSS_PARTS),
            kib(s.rss.total),
            kib(s.rss.measured),
            gap(s.rss),
            kib(cg.get("cg_user")),
            *(kib(cg.get(k)) for k in kernel),
            kib(s.cgroup.total if s.cgroup else None),
            kib(s.cgroup.measured if s.cgroup else None),
            gap(s.cgroup),
        ]
        lines.append("| " + " | ".join(row) + " |")
    if note := misses_line(splits):
        lines += ["", note]
    return "\n".join(lines)


def stacks_line(s: Split) -> str | None:
    """What the stacks reserve beside what they touch, per task, where a task has a stack."""
    stacks = s.extra.get("stacks", 0.0)
    if stacks < 0.5:
        return None
    reserved, guard = s.extra.get("stack_reserved", 0.0), s.extra.get("guard", 0.0)
    touched = dict((k, p) for k, _, p in s.rss.parts)["stack"]
    threads = s.extra.get("threads", 0.0)
    return (
        f"{s.variant} at N={s.n:,}: {stacks:.2f} stacks and {threads:.2f} threads per task; the stacks "
        f"reserve {reserved / KIB:,.0f} KiB per task and touch {kib(touched)} KiB, beside "
        f"{guard / KIB:,.0f} KiB of guard pages"
    )


def books_table(views: list[BooksView], notes: dict[str, str]) -> str:
    """Each book figure per task beside memrun's part of the same runs, and their ratio."""
    out = []
    for v in views:
        out.append(f"**{v.variant}**, N={v.n:,} against N=1 ({v.runs} run{'s' * (v.runs != 1)}):\n")
        out.append("| the runtime's figure | KiB per task | memrun's part | KiB per task | ratio |")
        out.append("|---|---:|---|---:|---:|")
        for line in v.lines:
            part = {"total": "RSS at the hold", "anonymous": "all anonymous (stacks, heap, other)"}.get(
                line.part, PARTS_TITLE.get(line.part, line.part)
            )
            ratio = "–" if line.ratio is None else f"{line.ratio:.2f}"
            out.append(f"| {line.name} | {kib(line.per_task)} | {part} | {kib(line.memrun)} | {ratio} |")
        if notes.get(v.variant):
            out.append(f"\n{notes[v.variant]}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def dominant(s: Split) -> str:
    """One sentence: a split's full cost per task (resident parts and kernel parts) and the parts
    that make most of it, with their shares, in measured numbers."""
    rss = [(t, p) for _, t, p in s.rss.parts]
    kernel = [(t, p) for k, t, p in (s.cgroup.parts if s.cgroup else []) if k != "cg_user"]
    parts = sorted([x for x in rss + kernel if x[1] > 0], key=lambda x: -x[1])
    total = sum(p for _, p in parts)
    if total <= 0:
        return f"{s.variant} at N={s.n:,}: no part grows with N"
    named = [f"{t} {p / KIB:,.2f} KiB ({p / total:.0%})" for t, p in parts[:2] if p / total >= 0.05]
    return (
        f"{s.variant} at N={s.n:,}: {total / KIB:,.2f} KiB per task in all "
        f"({s.rss.total / KIB:,.2f} resident, {(total - s.rss.total) / KIB:,.2f} kernel); "
        + ", then ".join(named)
    )


def docs_block(
    found: list[Split], views: list[BooksView], families: dict[str, str], notes: dict[str, str]
) -> str:
    """The generated part of docs/explain.md (`memrun derive explain`): what dominates, per
    family, the table and the books."""
    out = []
    for family in sorted({families.get(s.variant, "other") for s in found}):
        mine = [s for s in found if families.get(s.variant, "other") == family]
        out.append(f"- **{family}**: " + "; ".join(dominant(s) for s in mine) + ".")
    out += ["", splits_table(found), ""]
    lines = [x for s in found if (x := stacks_line(s))]
    out += [f"- {x}" for x in lines] + ([""] if lines else [])
    if views:
        out += ["The runtimes' own books, per task, beside memrun's part of the same runs:", ""]
        out.append(books_table(views, notes).rstrip("\n"))
    return "\n".join(out).strip("\n") + "\n"
