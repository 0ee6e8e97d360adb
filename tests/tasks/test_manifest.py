"""runner.tasks.manifest: the schema, checked at load time."""

from __future__ import annotations

import pytest

from runner import tasks
from runner.workload import get as get_workload
from tests.support.here import JAVA, RUST


def test_manifests_declare_per_task_needs():
    variants = tasks.load_all()
    assert variants["rust-threads"].per_task == RUST
    assert variants["java-threads"].per_task == JAVA
    assert variants["java-virtual"].per_task == {} and variants["rust-tokio"].per_task == {}


def test_manifest_rejects_unknown_per_task_key(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "task.toml").write_text(
        '[task]\ndescription = "x"\n[[build]]\ncommands = [["true"]]\n'
        '[[variant]]\nname = "t"\nrun = ["true"]\n'
        'proof = { kind = "counter", how = "a fake" }\nmodel = "async"\n[variant.per_task]\nthread = 1\n'
    )
    with pytest.raises(tasks.ManifestError, match="unknown key"):
        tasks.load_folder(folder)


PROOF = 'proof = { kind = "counter", how = "a fake" }\n'
MODEL = 'model = "async"\n'
HEAD = (
    '[task]\ndescription = "x"\n[[build]]\ncommands = [["true"]]\n[[variant]]\nname = "t"\nrun = ["true"]\n'
    + PROOF
    + MODEL
)


def _load(tmp_path, text: str):
    folder = tmp_path / "t"
    folder.mkdir(exist_ok=True)
    (folder / "task.toml").write_text(HEAD + text)
    return tasks.load_folder(folder)


def test_failure_table_folder_wide_and_per_variant(tmp_path):
    tf = _load(
        tmp_path,
        "[[variant.failure]]\npattern = 'mine'\nmeans = \"out-of-memory\"\n"
        '[[failure]]\npattern = \'ours\'\nmeans = "runtime-limit"\ncode = "x-limit"\n'
        'reason = "hit ({message})"\nremedy = "--limit {n + 1}"\n',
    )
    v = tf.variants[0]
    assert [f.pattern.pattern for f in v.failures] == ["mine", "ours"]  # the variant's own first
    assert (v.failures[1].code, v.failures[0].code) == ("x-limit", "out-of-memory")


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ("pattern = 'x'\nmeans = \"sad\"\n", "means must be one of"),
        ("pattern = '('\nmeans = \"thread-limit\"\n", "pattern:"),
        ('means = "thread-limit"\n', "pattern is required"),
        ("pattern = 'x'\nmeans = \"runtime-limit\"\n", "needs a reason and a remedy"),
        ('pattern = \'x\'\nmeans = "out-of-memory"\nremedy = "{m}"\n', r"unknown placeholder \{m\}"),
    ],
)
def test_failure_table_mistakes_name_the_file(tmp_path, table, words):
    with pytest.raises(tasks.ManifestError, match=words):
        _load(tmp_path, "[[failure]]\n" + table)


def test_npm_and_maven_packages_and_their_places(tmp_path):
    tf = _load(tmp_path, "")
    assert (tf.npm, tf.maven) == ([], [])
    text = HEAD.replace('description = "x"\n', 'description = "x"\nnpm = ["bun@1.2.3"]\nmaven = ["g:a:1"]\n')
    (tmp_path / "t" / "task.toml").write_text(
        text + '[tools.bun]\nfind = ["{npm_prefix}/node_modules/.bin/bun"]\n'
    )
    tf = tasks.load_folder(tmp_path / "t")
    assert (tf.npm, tf.maven) == (["bun@1.2.3"], ["g:a:1"])


def test_old_special_placeholder_is_gone_in_favour_of_arithmetic():
    elixir = tasks.load_all()["elixir"]
    assert any("{n + 65536}" in a for rule in elixir.when for a in rule.args)


def test_spread_is_declared_by_the_manifests_of_jvm_runtimes():
    spread = {name for name, v in tasks.load_all().items() if v.spread}
    assert spread == {"java-threads", "java-virtual", "kotlin-coroutines"}


def test_spread_folder_wide_or_per_variant_and_checked(tmp_path):
    folder = _load(
        tmp_path,
        '[[variant]]\nname = "a"\nrun = ["x"]\n'
        + PROOF
        + MODEL
        + 'spread = "own"\n[[variant]]\nname = "b"\nrun = ["x"]\n'
        + PROOF
        + MODEL,
    )
    assert [v.spread for v in folder.variants] == [None, "own", None]  # t (from HEAD), a, b
    with pytest.raises(tasks.ManifestError, match=r"variant\[a\]\.spread must be a string, not an integer"):
        _load(tmp_path, '[[variant]]\nname = "a"\nrun = ["x"]\n' + PROOF + MODEL + "spread = 3\n")
    with pytest.raises(tasks.ManifestError, match="spread must be a non-empty string"):
        _load(tmp_path, '[[variant]]\nname = "a"\nrun = ["x"]\n' + PROOF + MODEL + 'spread = " "\n')


WORKLOAD = (
    '[variant.workloads.connections]\nrun = ["srv", "{port}", "{n}", "{buffer}"]\nidiom = "one per conn"\n'
    '[[variant.workloads.connections.failure]]\npattern = "EMFILE"\nmeans = "fd-limit"\n'
)


def test_a_workload_table_replaces_run_idiom_and_adds_failures(tmp_path):
    v = _load(tmp_path, 'env = { A = "1" }\n[variant.per_task]\nthreads = 1\n' + WORKLOAD).variants[0]
    assert v.has == ("sleep", "connections") and v.workload is get_workload("sleep") and v.run == ["true"]
    c = v.under(get_workload("connections"))
    assert c.workload is get_workload("connections") and c.run == ["srv", "{port}", "{n}", "{buffer}"]
    assert c.idiom == "one per conn" and c.env == {"A": "1"} and c.per_task == {"threads": 1}
    assert [f.means for f in c.failures] == ["fd-limit"] and v.failures == []
    assert c.under(get_workload("connections")) is c


def test_a_variant_without_the_table_has_only_sleep(tmp_path):
    v = _load(tmp_path, "").variants[0]
    assert v.has == ("sleep",)
    with pytest.raises(KeyError):
        v.under(get_workload("connections"))


def test_workload_placeholders_are_only_for_workload_commands(tmp_path):
    with pytest.raises(tasks.ManifestError, match="port"):
        _load(tmp_path, 'env = { P = "{port}" }\n')
    with pytest.raises(tasks.ManifestError, match="unknown workload"):
        _load(tmp_path, '[variant.workloads.smtp]\nrun = ["x"]\n')


def test_every_variant_says_how_it_keeps_its_tasks_and_a_wrong_model_is_refused(tmp_path):
    """The report's runtimes table groups by `model`; a variant without one would fall out of it."""
    variants = tasks.load_all()
    assert all(v.model in ("os-threads", "green-threads", "async") for v in variants.values())
    assert (
        variants["java-threads"].model == "os-threads" and variants["java-virtual"].model == "green-threads"
    )
    with pytest.raises(
        tasks.ManifestError, match="variant a: model must be one of os-threads, green-threads, async"
    ):
        _load(tmp_path, '[[variant]]\nname = "a"\nrun = ["x"]\nmodel = "fibers"\n' + PROOF)


BOOKS = (
    '[variant.books]\nwhat = "w"\n{wait}'
    '[[variant.books.figure]]\nname = "heap"\nregex = "h (\\\\d+)"\nunit = "B"\npart = "heap"\n'
)
WHEN = '[[variant{under}.when]]\nmin_n = {min_n}\nargs = []\nreason = "r"\n'
CONNECTIONS = '[variant.workloads.connections]\nrun = ["srv", "{port}", "{n}", "{buffer}"]\n'


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (BOOKS.format(wait="wait_s = -1\n"), "variant t: books.wait_s"),
        (BOOKS.format(wait="wait_s = -0.5\n"), "variant t: books.wait_s"),
        (BOOKS.format(wait="wait_s = nan\n"), "variant t: books.wait_s"),
        (BOOKS.format(wait="wait_s = inf\n"), "variant t: books.wait_s"),
        (WHEN.format(under="", min_n=-1), "variant t: when[0].min_n"),
        (WHEN.format(under="", min_n=1.5), "variant[t].when[0].min_n"),  # the schema's: not an integer
        (CONNECTIONS + WHEN.format(under=".workloads.connections", min_n=-10), "connections.when[0].min_n"),
    ],
)
def test_a_value_that_would_fail_later_is_refused_at_load_naming_the_file_and_key(tmp_path, text, key):
    """A negative, NaN or infinite books.wait_s, a negative or fractional when.min_n: one
    ManifestError at load, one line naming the file and the key, not a failure later in a run."""
    with pytest.raises(tasks.ManifestError) as caught:
        _load(tmp_path, text)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 't' / 'task.toml'}: ") and key in message, message
    assert "\n" not in message


def test_good_books_wait_and_when_min_n_load(tmp_path):
    v = _load(tmp_path, WHEN.format(under="", min_n=0) + BOOKS.format(wait="wait_s = 0\n")).variants[0]
    assert v.when[0].min_n == 0 and v.books is not None and v.books.wait_s == 0.0


def test_a_variant_without_a_model_is_refused_naming_the_file_and_key(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "task.toml").write_text(HEAD.replace(MODEL, ""))
    with pytest.raises(tasks.ManifestError) as caught:
        tasks.load_folder(folder)
    message = str(caught.value)
    assert message.startswith(f"{folder / 'task.toml'}: ") and "variant t: model is required" in message
