"""runner.tasks.schema: every key of a task.toml is known and of its type, or one line names the
file and the key (and the CLI exits 2 with it)."""

from __future__ import annotations

import pytest

from runner import tasks
from tests.support.cli import one_line_error, run

GOOD = """\
[task]
description = "x"
family = "Test"
apt = ["a"]

[tools.python]
find = ["{python}"]
optional = false
package = "a"

[[build]]
name = "b"
commands = [["true"]]

[[variant]]
name = "t"
run = ["true"]
proof.kind = "counter"
proof.how = "a fake"
model = "async"

[[variant.when]]
min_n = 1000
args = []
reason = "r"
"""


def _write(tmp_path, text: str):
    folder = tmp_path / "tasks" / "t"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "task.toml").write_text(text)
    return folder


def test_a_manifest_of_the_right_types_loads(tmp_path):
    tf = tasks.load_folder(_write(tmp_path, GOOD))
    assert tf.family == "Test" and tf.variants[0].when[0].min_n == 1000


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('family = "Test"', "family = 3", "task.family must be a string, not an integer (3)"),
        ('apt = ["a"]', 'apt = "a"', "task.apt must be a list of strings, not a string ('a')"),
        ("optional = false", 'optional = "no"', "tools.python.optional must be true or false, not a string"),
        ('package = "a"', "package = 1.5", "tools.python.package must be a string, not a number (1.5)"),
        ('name = "b"', "name = 2", "build[0].name must be a string, not an integer (2)"),
        ('commands = [["true"]]', 'commands = ["true"]', "build[b].commands must be a list of commands"),
        ("min_n = 1000", 'min_n = "1000"', "variant[t].when[0].min_n must be an integer, not a string"),
        (
            'proof.how = "a fake"',
            "proof.how = 7",
            "variant[t].proof.how must be a string, not an integer (7)",
        ),
        ('reason = "r"', "reason = true", "variant[t].when[0].reason must be a string, not a boolean"),
        ('family = "Test"', 'famly = "Test"', "task.famly: unknown key"),
        ('name = "t"', 'name = "t"\nidoim = "x"', "variant[t].idoim: unknown key"),
    ],
)
def test_a_key_of_the_wrong_type_names_the_file_and_the_key(tmp_path, old, new, words):
    assert old in GOOD
    folder = _write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(tasks.ManifestError) as caught:
        tasks.load_folder(folder)
    message = str(caught.value)
    assert message.startswith(f"{folder / 'task.toml'}: ") and words in message, message
    assert "\n" not in message


def test_every_shipped_manifest_passes_the_schema():
    assert len(tasks.load_all()) >= 29  # load_all checks every tasks/*/task.toml


def test_the_cli_says_it_in_one_line_and_exits_2(tmp_path):
    _write(tmp_path, GOOD.replace('family = "Test"', "family = 3"))
    p = run("doctor", tmp_path=tmp_path, env={"MEMRUN_TASKS": str(tmp_path / "tasks")})
    one_line_error(p, "task.toml", "task.family must be a string, not an integer (3)")
