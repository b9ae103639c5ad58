"""The embedded preset: offline CPU metrics in every language of every edition, no download and
no GPU. Its parts, in one folder:

- :mod:`.preset`: the preset class, registered as ``embedded`` (the default);
- :mod:`.heads`: the trained heads and their features, loaded from ``trained/`` (shipped);
- :mod:`.training`: what the heads learn from and how (``detox train-embedded``; ``pins.json``:
  the SHA-256 of every file they are made from);
- :mod:`.negatives`: the examples of lost meaning and broken fluency built from people's texts;
- :mod:`.scoring`: STA, SIM and FL of a pair from the heads and the model of meaning
  (:mod:`detox_core.models.meaning`, shared with Find similar and the failure kinds);
- ``agreement.json``: its agreement with people, measured by ``make heads``."""

from detox_core.metrics.embedded.preset import EmbeddedPreset

__all__ = ["EmbeddedPreset"]
