"""Metric presets: named, versioned recipes for STA, SIM, FL, J and chrF.

A preset is a :class:`Preset` subclass in the :data:`PRESETS` registry:

- ``russe2022``: the official RUSSE-2022 metrics (Dementieva et al., 2022,
  "RUSSE-2022: Findings of the First Russian Detoxification Shared Task"):
  STA = P(neutral | output) of ``s-nlp/russian_toxicity_classifier``;
  SIM = cosine of the L2-normalised ``pooler_output`` of ``cointegrated/LaBSE-en-ru``
  for input and output; FL = P(clean | output) - P(clean | input) of
  ``s-nlp/rubert-base-corruption-detector``, capped at 0; each calibrated as
  ``clip((x - px) * coef + 1, 0, 1)`` (STA 0.90/1, SIM 1.50/1, FL 1.15/0).
- ``textdetox2024``: the multilingual TextDetox 2024 recipe: STA = P(neutral) of
  ``textdetox/xlmr-large-toxicity-classifier``, SIM = cosine of
  ``sentence-transformers/LaBSE`` embeddings, FL = chrF of the output against the
  references; no calibration.
- ``embedded``: offline CPU models the project trains from the corpus
  (:mod:`detox_core.embedded`).

Every preset returns a score frame (:mod:`detox_core.metrics.base`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from detox_core.errors import DetoxInputError
from detox_core.metrics.base import NO_CALIBRATION, Calibration, Signature, make_score_frame
from detox_core.metrics.chrf import chrf_signature, sentence_chrf
from detox_core.models import ModelPool, default_pool

#: progress(step name, done, total)
StepProgress = Callable[[str, int, int], None]


def check_pairs(inputs: Sequence[str], outputs: Sequence[str], references: Sequence[Sequence[str]] | None) -> list[list[str]]:
    """Validate lengths; returns references as a list of lists (empty when none)."""
    if len(inputs) != len(outputs):
        raise DetoxInputError(f"expected one output per input ({len(inputs)}), found {len(outputs)} outputs")
    if references is None:
        return [[] for _ in inputs]
    if len(references) != len(inputs):
        raise DetoxInputError(f"expected references for each of the {len(inputs)} inputs, found {len(references)}")
    return [[r for r in refs if r] for refs in references]


class Preset(ABC):
    """A named, versioned recipe that scores (input, output[, references]) pairs."""

    name: ClassVar[str]
    version: ClassVar[str]
    title: ClassVar[str]
    #: role -> model id
    models: dict[str, str]
    #: role -> how the pool loads that role's model
    model_kinds: ClassVar[dict[str, str]] = {}

    def __init__(self, pool: ModelPool | None = None, models: dict[str, str] | None = None) -> None:
        self.pool = pool
        self.models = {**self.default_models(), **(models or {})}

    @classmethod
    def default_models(cls) -> dict[str, str]:
        return {}

    def get_pool(self) -> ModelPool:
        return self.pool or default_pool()

    @abstractmethod
    def score(
        self,
        inputs: Sequence[str],
        outputs: Sequence[str],
        references: Sequence[Sequence[str]] | None = None,
        *,
        calibrated: bool = True,
        progress: StepProgress | None = None,
    ) -> pd.DataFrame:
        """Score every pair; returns a score frame (one row per pair)."""

    def signature(self, calibrated: bool = True) -> Signature:
        return Signature(preset=self.name, preset_version=self.version, calibrated=calibrated, chrf=chrf_signature())


class Russe2022(Preset):
    """The official RUSSE-2022 metrics (see the module docstring)."""

    name = "russe2022"
    version = "1"
    title = "RUSSE-2022 official (GPU models)"
    calibration = Calibration()
    model_kinds = {"sta": "classifier", "sim": "encoder", "fl": "classifier"}

    @classmethod
    def default_models(cls) -> dict[str, str]:
        return {
            "sta": "s-nlp/russian_toxicity_classifier",
            "sim": "cointegrated/LaBSE-en-ru",
            "fl": "s-nlp/rubert-base-corruption-detector",
        }

    def axes(self, inputs: Sequence[str], outputs: Sequence[str], progress: StepProgress | None = None) -> dict[str, np.ndarray]:
        """The uncalibrated quantities: P(neutral|out), cosine, P(clean|out) - P(clean|in)."""
        pool = self.get_pool()

        def step(name: str) -> Callable[[int, int], None] | None:
            return (lambda done, total: progress(name, done, total)) if progress else None

        sta_model, sim_model, fl_model = self.models["sta"], self.models["sim"], self.models["fl"]
        neutral = pool.label_index(sta_model, ["neutral", "non-toxic", "non_toxic", "not toxic"], 0, role="sta")
        p_neutral = pool.probabilities(sta_model, outputs, role="sta", progress=step("STA"))[:, neutral]
        emb_in = pool.embeddings(sim_model, inputs, role="sim", progress=step("SIM inputs"))
        emb_out = pool.embeddings(sim_model, outputs, role="sim", progress=step("SIM outputs"))
        cosine = np.sum(emb_in * emb_out, axis=1)
        # The official evaluation takes class 1 of the corruption detector as "clean".
        clean = pool.label_index(fl_model, ["clean", "not corrupted", "acceptable", "fluent"], 1, role="fl")
        p_in = pool.probabilities(fl_model, inputs, role="fl", progress=step("FL inputs"))[:, clean]
        p_out = pool.probabilities(fl_model, outputs, role="fl", progress=step("FL outputs"))[:, clean]
        return {"p_neutral": p_neutral, "cosine": cosine, "fl_delta": p_out - p_in}

    def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        ax = self.axes(inputs, outputs, progress)
        cal = self.calibration
        fl_x = np.minimum(0.0, ax["fl_delta"])
        raw = {"sta": cal.raw("sta", ax["p_neutral"]), "sim": cal.raw("sim", ax["cosine"]), "fl": cal.raw("fl", fl_x)}
        on = {"sta": cal.apply("sta", ax["p_neutral"]), "sim": cal.apply("sim", ax["cosine"]), "fl": cal.apply("fl", fl_x)}
        chosen = on if calibrated else raw
        return make_score_frame(
            raw["sta"], raw["sim"], raw["fl"], sentence_chrf(outputs, refs), self.signature(calibrated),
            sta=chosen["sta"], sim=chosen["sim"], fl=chosen["fl"],
        )

    def signature(self, calibrated: bool = True) -> Signature:
        sig = super().signature(calibrated)
        pool = self.get_pool()
        sig.models = {role: pool.info(mid, self.model_kinds[role], role) for role, mid in self.models.items()}
        sig.calibration = asdict(self.calibration) if calibrated else asdict(NO_CALIBRATION)
        return sig


class TextDetox2024(Preset):
    """The multilingual TextDetox 2024 metrics (see the module docstring)."""

    name = "textdetox2024"
    version = "1"
    title = "TextDetox 2024 multilingual (GPU models)"
    model_kinds = {"sta": "classifier", "sim": "sentence-transformer"}

    @classmethod
    def default_models(cls) -> dict[str, str]:
        return {"sta": "textdetox/xlmr-large-toxicity-classifier", "sim": "sentence-transformers/LaBSE"}

    def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        pool = self.get_pool()

        def step(name: str):
            return (lambda done, total: progress(name, done, total)) if progress else None

        neutral = pool.label_index(self.models["sta"], ["neutral", "non-toxic", "non_toxic"], 0, role="sta")
        sta = pool.probabilities(self.models["sta"], outputs, role="sta", progress=step("STA"))[:, neutral]
        emb_in = pool.embeddings(self.models["sim"], inputs, kind="sentence-transformer", role="sim", progress=step("SIM inputs"))
        emb_out = pool.embeddings(self.models["sim"], outputs, kind="sentence-transformer", role="sim", progress=step("SIM outputs"))
        sim = np.clip(np.sum(emb_in * emb_out, axis=1), 0.0, 1.0)
        chrf = sentence_chrf(outputs, refs)
        # FL is chrF against the references; without references it cannot be computed.
        return make_score_frame(sta, sim, chrf, chrf, self.signature(calibrated))

    def signature(self, calibrated: bool = True) -> Signature:
        sig = super().signature(calibrated)
        pool = self.get_pool()
        sig.models = {
            **{role: pool.info(self.models[role], kind, role) for role, kind in self.model_kinds.items()},
            "fl": {"id": "chrF vs references", "revision": chrf_signature()},
        }
        sig.calibration = None
        return sig


PRESETS: dict[str, type[Preset]] = {
    Russe2022.name: Russe2022,
    TextDetox2024.name: TextDetox2024,
}


def registered() -> dict[str, type[Preset]]:
    """Every preset, the embedded one included (registered on first use: it imports
    this module, so it cannot be imported here at load time)."""
    from detox_core.embedded.preset import EmbeddedPreset

    PRESETS.setdefault(EmbeddedPreset.name, EmbeddedPreset)
    return PRESETS


def get_preset(name: str, pool: ModelPool | None = None, models: dict[str, str] | None = None, **options: Any) -> Preset:
    """Instantiate a registered preset.

    Args:
        name: a key of :data:`PRESETS`.
        pool: the model pool (default: the process-wide one).
        models: role (``sta``/``sim``/``fl``) -> model id or local folder, overriding
            the preset's defaults.

    Raises:
        KeyError: unknown preset, with the known names.
    """
    presets = registered()
    if name not in presets:
        raise KeyError(f"unknown preset {name!r}; known: {', '.join(sorted(presets))}")
    cls = presets[name]
    defaults = cls.default_models()
    unknown = set(models or {}) - set(defaults)
    if unknown:
        raise KeyError(f"preset {name!r} has no model role {', '.join(sorted(unknown))}; its roles: {', '.join(defaults) or 'none'}")
    ids: dict[str, str] = {}
    local: dict[str, str] = {}
    for role, value in (models or {}).items():
        if Path(value).is_dir():
            # A folder stands in for the preset's model: same id in the signature,
            # loaded from the folder through the same from_pretrained code.
            local[defaults[role]] = value
        else:
            ids[role] = value
    if local:
        pool = pool or default_pool()
        pool.model_map.update(local)
    return cls(pool=pool, models=ids, **options)


def score(
    inputs: Sequence[str],
    outputs: Sequence[str],
    references: Sequence[Sequence[str]] | None = None,
    preset: str = "embedded",
    *,
    calibrated: bool = True,
    pool: ModelPool | None = None,
    models: dict[str, str] | None = None,
    progress: StepProgress | None = None,
) -> pd.DataFrame:
    """Score outputs with a preset; see :class:`Preset.score`."""
    return get_preset(preset, pool=pool, models=models).score(
        inputs, outputs, references, calibrated=calibrated, progress=progress
    )
