"""runner.tasks.template: placeholders and the small arithmetic manifests use instead of eval."""

from __future__ import annotations

import pytest

from runner.tasks.template import TemplateError, check, expand, names_in

VALUES = {"n": "300000", "sleep": "0.5", "build": "/b"}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("+P {n + 65536}", "+P 365536"),
        ("{n*2}", "600000"),
        ("{ (n + 1) // 2 - 3 }", "149997"),
        ("{sleep * 1000}", "500"),
        ("{build}/x {n}", "/b/x 300000"),
        ("io:format({ok, V})", "io:format({ok, V})"),  # not a placeholder: commas are never ours
    ],
)
def test_expand(text, want):
    assert expand(text, VALUES) == want


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{n +}", "ends too early"),
        ("{n ** 2}", "unexpected"),
        ("{(n + 1 n}", r"missing '\)'"),
        ("{n // 0}", "division by zero"),
        ("{build + 1}", "no numeric value"),
        ("{nope}", "no value here"),
    ],
)
def test_expand_refuses(text, words):
    with pytest.raises(TemplateError, match=words):
        expand(text, VALUES)


def test_check_at_load_time_names_unknown_names_and_bad_expressions():
    check("{n + 65536} {sleep}", {"n", "sleep"})
    with pytest.raises(TemplateError, match=r"unknown placeholder \{m\}"):
        check("{m + 1}", {"n"})
    with pytest.raises(TemplateError, match="ends too early"):
        check("{n -}", {"n"})
    assert names_in("{n + 1} {build} {ok, V}") == {"n", "build"}
