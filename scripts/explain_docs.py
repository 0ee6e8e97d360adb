"""Write the generated block of docs/explain.md from the runs stored in plots/explain:
`python scripts/explain_docs.py` (tests/show/tables/test_explain_docs.py checks it is fresh)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from runner import tasks  # noqa: E402
from runner.analysis.explain import books_views, splits  # noqa: E402
from runner.results import load_records  # noqa: E402
from runner.show.figures.split import chosen  # noqa: E402
from runner.show.tables.explain import BEGIN, END, docs_block  # noqa: E402

DATA = ROOT / "plots" / "explain"
PAGE = ROOT / "docs" / "explain.md"


def block(data: Path = DATA) -> str:
    """The block as the committed data gives it."""
    records = [r for _, r in load_records([data])]
    known = tasks.load_all()
    found, _ = splits(records)
    shown = sorted(
        chosen(found), key=lambda s: (known[s.variant].family if s.variant in known else "", s.variant)
    )
    parts = {n: {f.name: f.part for f in v.books.figures} for n, v in known.items() if v.books}
    notes = {n: v.books.note for n, v in known.items() if v.books}
    families = {n: v.family for n, v in known.items()}
    return docs_block(shown, books_views(records, parts), families, notes)


def page_with(text: str, new: str) -> str:
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + new + text[end:]


if __name__ == "__main__":
    PAGE.write_text(page_with(PAGE.read_text(), block()))
    print(f"wrote {PAGE} (its figure is `memrun derive`'s: plots/explain/split-per-task.*)")
