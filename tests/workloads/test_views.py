"""ShowsInPackage: the view hooks of connections and http are their package's `show` functions,
and a workload without such a module says so instead of showing nothing."""

from __future__ import annotations

import pytest

from runner import workload as workloads
from runner.workloads.views import ShowsInPackage


@pytest.mark.parametrize("name", ["connections", "http"])
def test_hooks_are_the_packages_show_functions(name: str) -> None:
    w = workloads.get(name)
    show = w.module("show")
    assert isinstance(w, ShowsInPackage) and show is not None
    head = "peak RSS, sleep 10 s"
    assert w.heading(head) == show.heading(head) != head
    assert w.tail([]) == show.tail([])
    client = {"connected": 3, "peak_bytes": 1 << 20, "cpu_s": 0.5}
    assert w.client_line(3, client) == show.client_line(3, client)


def test_a_workload_without_a_show_module_says_so() -> None:
    class Bare(ShowsInPackage):
        name = "bare"
        package = "runner.workloads.sleep"  # a real package, without a show module

    with pytest.raises(NotImplementedError, match=r"no runner\.workloads\.sleep\.show"):
        Bare().heading("x")
