import pytest

from runner.inputs import MAX_N, parse_n_list


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1,1e4,1e5,1e6", [1, 10_000, 100_000, 1_000_000]),
        ("10k", [10_000]),
        ("10_000", [10_000]),
        ("10000", [10_000]),
        ("1M", [1_000_000]),
        ("1e6, 1", [1, 1_000_000]),
    ],
)
def test_accepted_forms(text, expected):
    assert parse_n_list(text) == expected


@pytest.mark.parametrize(
    "text, words",
    [
        ("abc", "not a task count"),
        ("-5", "positive"),
        ("0", "at least 1"),
        ("1e99", "more than memrun allows"),
        ("1.5", "whole number"),
        ("", "empty"),
        ("1,,2", "empty value"),
        ("1,1e0", "more than once"),
        ("10kk", "not a task count"),
    ],
)
def test_rejected_with_a_message(text, words):
    with pytest.raises(ValueError, match=words):
        parse_n_list(text)


def test_limit_is_inclusive():
    assert parse_n_list(str(MAX_N)) == [MAX_N]
