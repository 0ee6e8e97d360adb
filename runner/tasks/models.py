"""How each variant keeps its tasks (its manifest's `model`: OS threads, green threads and actors,
async), read from the manifests here: the runtimes' groups of a report whose results were stored
before sweeps recorded it."""

from __future__ import annotations


def variant_models() -> dict[str, str]:
    """variant -> its model, from the manifests here (none where they cannot be read: a report
    of stored results must not fail on a broken manifest)."""
    from runner import tasks

    try:
        return {name: v.model for name, v in tasks.load_all().items() if v.model}
    except (tasks.ManifestError, OSError):
        return {}
