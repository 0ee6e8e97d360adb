"""runner.tasks.versionspec: [versions.NAME] tables, checked when the manifest loads."""

from __future__ import annotations

import pytest

from runner import tasks

HEAD = (
    '[task]\ndescription = "x"\n[tools.go]\nfind = ["go"]\n[[build]]\ncommands = [["true"]]\n'
    '[[variant]]\nname = "t"\nrun = ["true"]\nproof = { kind = "counter", how = "a fake" }\n'
    'model = "async"\n'
)


def _load(tmp_path, text: str):
    folder = tmp_path / "t"
    folder.mkdir(exist_ok=True)
    (folder / "task.toml").write_text(HEAD + text)
    return tasks.load_folder(folder)


def test_a_version_table_is_read_with_its_before_tables_oldest_first(tmp_path):
    tf = _load(
        tmp_path,
        '[versions.go]\nwhat = "the Go toolchain"\nlist = ["{go}", "list"]\n'
        'install = [["{go}", "mod", "edit", "-go={version_minor}"]]\nenv = { GOTOOLCHAIN = "go{version}" }\n'
        'tools = { go = "{go}" }\nreports = "go"\npresets = { article = "1.18.10" }\n'
        '[[versions.go.before]]\nversion = "1.21"\nrun = ["old"]\nreason = "r2"\n'
        'proof = { kind = "self-contained", how = "the old program" }\n'
        '[[versions.go.before]]\nversion = "1.9"\nbuild = [["older"]]\nreason = "r1"\n',
    )
    spec = tf.versions["go"]
    assert spec.env == {"GOTOOLCHAIN": "go{version}"} and spec.presets == {"article": "1.18.10"}
    assert [b.version for b in spec.before] == ["1.9", "1.21"]  # numeric order, not text order
    assert [b.proof and b.proof.kind for b in spec.before] == [None, "self-contained"]  # with its run
    assert spec.applies_to("t") and tf.variants[0].chosen_version == {}


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ('list = ["x"]\n', "what is required"),
        ('what = "w"\n', "either list"),
        ('what = "w"\nlist = ["x"]\ntool = "go"\n', "either list"),
        ('what = "w"\ntool = "java"\n', "not a \\[tools\\] entry"),
        ('what = "w"\nlist = ["x"]\nvariants = ["nope"]\n', "no variant nope"),
        ('what = "w"\nlist = ["x"]\ntools = { java = "x" }\n', "java not in this folder"),
        ('what = "w"\nlist = ["{versoin}"]\n', r"unknown placeholder \{versoin\}"),
        ('what = "w"\nlist = ["x"]\nlist_regex = "("\n', "list_regex"),
        ('what = "w"\nlist = ["x"]\nsurprise = 1\n', "unknown key"),
        (
            'what = "w"\nlist = ["x"]\n[[versions.v.before]]\nversion = "16"\nrun = ["x"]\n',
            "reason is required",
        ),
        (
            'what = "w"\nlist = ["x"]\n[[versions.v.before]]\nversion = "new"\nrun = ["x"]\nreason = "r"\n',
            "version",
        ),
        (
            'what = "w"\nlist = ["x"]\n[[versions.v.before]]\nversion = "16"\nrun = ["x"]\nreason = "r"\n',
            r"before\[0\]\.proof must be a table .*a `run` replaces the program",
        ),
        (
            'what = "w"\nlist = ["x"]\n[[versions.v.before]]\nversion = "16"\nrun = ["x"]\nreason = "r"\n'
            'proof = { kind = "hope", how = "h" }\n',
            r"before\[0\]\.proof\.kind must be one of self-contained, counter, state",
        ),
    ],
)
def test_a_wrong_version_table_names_the_file_and_the_key(tmp_path, table, words):
    with pytest.raises(tasks.ManifestError, match=words) as caught:
        _load(tmp_path, "[versions.v]\n" + table)
    assert "task.toml" in str(caught.value)


def test_the_real_manifests_have_the_axes_the_issue_names():
    variants = tasks.load_all()
    axes = {n: set(v.folder.versions) for n, v in variants.items()}
    assert (
        {"go"} <= axes["go"] and {"tokio"} <= axes["rust-tokio"] and {"async-std"} <= axes["rust-async-std"]
    )
    node = variants["node"].folder.versions
    assert node["node"].variants == ["node"] and node["bun"].variants == ["bun"]
    presets = {n: s.presets.get("article") for v in variants.values() for n, s in v.folder.versions.items()}
    assert presets["go"] == "1.18.10" and presets["node"] == "12.22.12"
    assert presets["tokio"] == "1.28.2" and presets["async-std"] == "1.12.0"
