"""The ``embedded`` preset: offline CPU metrics trained by the project
(:mod:`detox_core.embedded`), no download and no GPU."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core.embedded.loader import load_models
from detox_core.embedded.recipe import PARAMS, RECIPE_VERSION, EmbeddedModels, cosine, sentence_vector
from detox_core.lru import ByteLRU, cache_budget
from detox_core.metrics.base import Preset, Signature, check_pairs, make_score_frame
from detox_core.metrics.chrf import sentence_chrf
from detox_core.metrics.registry import register_preset

class _TextMemo:
    """Per-text results shared by every call (inputs of a test set are scored once),
    in a byte-bounded cache: visitors' distinct texts push out the oldest."""

    def __init__(self, max_bytes: int) -> None:
        self.values: ByteLRU[object] = ByteLRU(max_bytes)

    def many(self, kind: str, texts: Sequence[str], compute) -> list:
        return self.values.get_many([(kind, t) for t in texts], lambda missing: compute([k[1] for k in missing]))

_MEMO = _TextMemo(cache_budget("embedded"))


@register_preset
class EmbeddedPreset(Preset):
    """Offline CPU metrics trained by the project (no download, no GPU).

    STA = P(neutral | output); SIM = mean of navec cosine and chrF(output, input);
    FL = fluency of the output; J = STA x SIM x FL; no calibration (the scores are
    already on a 0-1 scale). See :mod:`detox_core.embedded.recipe`.
    """

    name = "embedded"
    version = RECIPE_VERSION
    title = "Embedded (offline CPU)"
    label = "Embedded (offline CPU)"
    languages = ("ru",)  # trained on Russian data only
    description = "Offline CPU models the project trains from the corpus: no download, no GPU."
    needs_download = False

    def __init__(self, pool=None, models=None, sources=None, folder: Path | None = None) -> None:
        super().__init__(pool=pool, models=models, sources=sources)
        self.folder = folder

    def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        m = load_models(self.folder)
        n = len(outputs)

        def report(step: str, done: int) -> None:
            if progress:
                progress(step, done, n)

        # Memo keys name the trained folder: models retrained in this process score anew.
        sta = np.array(_MEMO.many(f"sta:{m.folder.name}", outputs, lambda ts: list(m.p_neutral(ts))), dtype=np.float64)
        report("STA", n)
        vec_in = _MEMO.many("vec", inputs, lambda ts: [sentence_vector(t) for t in ts])
        vec_out = _MEMO.many("vec", outputs, lambda ts: [sentence_vector(t) for t in ts])
        cos = np.clip([cosine(a, b) for a, b in zip(vec_in, vec_out)], 0.0, 1.0)
        chrf_in = sentence_chrf(outputs, [[t] for t in inputs])
        w_cos, w_chrf = PARAMS["sim"]["weights"]
        sim = w_cos * cos + w_chrf * chrf_in
        report("SIM", n)
        fl = np.array(_MEMO.many(f"fl:{m.folder.name}", outputs, lambda ts: list(m.fluency(ts))), dtype=np.float64)
        report("FL", n)
        chrf = sentence_chrf(outputs, refs)
        return make_score_frame(sta, sim, fl, chrf, self._signature(m, calibrated))

    def signature(self, calibrated: bool = True) -> Signature:
        return self._signature(load_models(self.folder), calibrated)

    def _signature(self, m: EmbeddedModels, calibrated: bool) -> Signature:
        sig = super().signature(calibrated)
        sig.models = {
            "sta": {"id": "embedded/tfidf-char-logreg", "revision": m.meta["hash"]},
            "sim": {"id": f"embedded/{PARAMS['sim']['embeddings']}+chrF", "revision": m.meta["hash"]},
            "fl": {"id": "embedded/charlm5+pymorphy3", "revision": m.meta["hash"]},
        }
        sig.calibration = None
        sig.calibrated = False
        return sig
