"""What the library refuses, said as the command line says bad input: the library's own error
(a ValueError of one line) becomes an InputError, one line on stderr and exit status 2."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from runner.cli.app import InputError


@contextlib.contextmanager
def refused(*kinds: type[Exception], prefix: str = "") -> Iterator[None]:
    """Turn any of kinds raised inside into an InputError with its message (after prefix, e.g.
    "--n: " for the option it is about), without the library's traceback."""
    try:
        yield
    except kinds as e:
        raise InputError(f"{prefix}{e}") from None
