"""runner.tasks.registry: what a choice of versions means, against a registry on disk."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from runner.tasks import load_folder, registry

FAKELIB = Path(__file__).resolve().parents[1] / "fixtures" / "versioned" / "fakelib"


def _spec():
    tf = load_folder(FAKELIB)
    return tf, tf.versions["fakelib"]


def test_versions_sort_numerically_and_trailing_zeros_do_not_count():
    assert sorted(["1.18.10", "1.9", "1.18", "1.18.2"], key=registry.key) == [
        "1.9",
        "1.18",
        "1.18.2",
        "1.18.10",
    ]
    assert registry.same("1.18", "1.18.0") and not registry.same("1.18", "1.18.1")
    assert registry.is_release("1.22.0") and not registry.is_release("1.22rc1")


def test_a_choice_is_a_version_a_range_a_series_or_a_preset():
    tf, spec = _spec()
    assert registry.choose(tf, spec, "1.3.0") == ["1.3.0"]
    assert registry.choose(tf, spec, "1.3") == ["1.3.0"]  # the listed spelling
    assert registry.choose(tf, spec, "1.2.0..1.4.0") == ["1.2.0", "1.3.0", "1.4.0"]
    assert registry.choose(tf, spec, "1.7..") == ["1.7.0", "1.8.0", "2.0.0"]
    assert registry.choose(tf, spec, "1..2/major") == ["1.8.0", "2.0.0"]
    assert registry.choose(tf, spec, "1.0..1.1/minor") == ["1.0.0", "1.1.0"]
    assert registry.choose(tf, spec, "article") == ["1.2.0"]
    assert registry.choose(tf, spec, "installed") == [registry.INSTALLED]


def test_a_version_the_registry_lacks_is_an_error_naming_the_nearest():
    tf, spec = _spec()
    with pytest.raises(registry.RegistryError) as caught:
        registry.choose(tf, spec, "1.4.5")
    text = str(caught.value)
    assert "fakelib 1.4.5 is not in the registry" in text and "registry.py list" in text
    assert "nearest: 1.3.0, 1.4.0, 1.5.0" in text and "\n" not in text
    with pytest.raises(registry.RegistryError, match=r"no release in 3\.\.4"):
        registry.choose(tf, spec, "3..4")


def test_a_registry_that_cannot_list_says_so_in_one_line(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "task.toml").write_text(
        (FAKELIB / "task.toml")
        .read_text()
        .replace('"{dir}/registry.py", "list"', '"-c", "raise SystemExit(3)"')
    )
    tf = load_folder(folder)
    with pytest.raises(registry.RegistryError, match=r"cannot list fakelib versions: .* failed"):
        registry.listing(tf, tf.versions["fakelib"])


def test_a_guest_chooses_from_the_listing_the_host_gave_it_without_a_registry(tmp_path, monkeypatch):
    """A guest (runner.vm) has no network: the host writes the listings it used, and with
    MEMRUN_LISTINGS naming that file a folder whose registry cannot list still chooses."""
    tf, spec = _spec()
    monkeypatch.setattr(registry, "_cache", {})
    listed = registry.listing(tf, spec)
    registry.snapshot(tmp_path / "listings.json")
    monkeypatch.setattr(registry, "_cache", {})
    dead = load_folder(FAKELIB)  # the same manifest, its registry now failing
    dead.versions["fakelib"] = dataclasses.replace(spec, list=["false"])
    with pytest.raises(registry.RegistryError):  # without the host's listing: no registry
        registry.listing(dead, dead.versions["fakelib"])
    monkeypatch.setenv(registry.LISTINGS_ENV, str(tmp_path / "listings.json"))
    given = registry.listing(dead, dead.versions["fakelib"])
    assert given.versions == listed.versions and "as the host listed it" in given.source
    assert registry.choose(dead, dead.versions["fakelib"], "1.4.0..1.6.0") == ["1.4.0", "1.5.0", "1.6.0"]
