"""runner.tasks.models: each variant's model, from the manifests here, or none where they are broken."""

from __future__ import annotations

from runner import tasks
from runner.tasks import models


def test_every_variant_with_a_model_is_named_and_a_broken_manifest_gives_none(monkeypatch):
    found = models.variant_models()
    assert found and found == {n: v.model for n, v in tasks.load_all().items() if v.model}

    def broken() -> dict:
        raise tasks.ManifestError("task.toml: not valid TOML")

    monkeypatch.setattr(tasks, "load_all", broken)
    assert models.variant_models() == {}
