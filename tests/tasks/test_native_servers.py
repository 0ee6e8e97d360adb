"""The connections servers of the Rust, C and C++ folders, as their manifests declare them.

The messages below are what each server printed here when it ran out of file descriptors
(`ulimit -n 256`, N=1000) or could not allocate a connection's buffer (BUFFER_BYTES = 10^15): the
manifest's failure entries must recognise them, so a failed run is diagnosed without runner code.
"""

from __future__ import annotations

import pytest

from runner import tasks
from runner.workload import get as get_workload

RUST_EMFILE = "accept: Too many open files (os error 24)"
RUST_ALLOC = "memory allocation of 1000000000000000 bytes failed"
OBSERVED = {
    "rust-threads": (RUST_EMFILE, RUST_ALLOC),
    "rust-tokio": (RUST_EMFILE, RUST_ALLOC),
    "rust-async-std": (RUST_EMFILE, RUST_ALLOC),
    "rust-smol": (RUST_EMFILE, RUST_ALLOC),
    "c-pthreads": (
        "accept: Too many open files (after 251 connections)",
        "malloc: Cannot allocate memory (a 1000000000000000-byte buffer)",
    ),
    "cpp-asio": (
        "accept: Too many open files (after 248 connections)",
        "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc",
    ),
}
VARIANTS = tasks.load_all()


def _meaning(variant: tasks.Variant, text: str) -> str | None:
    """The meaning of the first failure entry whose pattern is found in text."""
    return next((f.means for f in variant.failures if f.pattern.search(text)), None)


@pytest.mark.parametrize("name", sorted(OBSERVED))
def test_server_runs_with_port_n_buffer_and_is_built(name):
    v = VARIANTS[name]
    assert v.has[:2] == ("sleep", "connections")  # and http, where the folder has a server for it
    c = v.under(get_workload("connections"))
    assert c.run[1:] == ["{port}", "{n}", "{buffer}"] and c.run[0] != v.run[0]
    assert c.idiom != v.idiom
    built = {o for b in v.folder.builds for o in b.outputs}
    assert c.run[0] in built and v.run[0] in built  # one build makes both programs


@pytest.mark.parametrize("name", sorted(OBSERVED))
def test_observed_failures_are_recognised(name):
    emfile, alloc = OBSERVED[name]
    c = VARIANTS[name].under(get_workload("connections"))
    assert _meaning(c, emfile) == "fd-limit"
    assert _meaning(c, alloc) == "out-of-memory"
    assert _meaning(c, "accept: Connection reset by peer") is None
    assert _meaning(VARIANTS[name], emfile) is None  # the sleep program has no sockets
