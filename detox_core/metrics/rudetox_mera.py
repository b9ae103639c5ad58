"""The ruDetox recipe of the MERA benchmark (Fenogenova et al., 2024, "MERA: A
Comprehensive LLM Evaluation in Russian"), exact to its published code.

Followed, at MERA-Evaluation/MERA commit 9cf05b2d04a17fa23c71d0d67ade591a6ef392d6:
``humanbenchmarks/ruDetox/eval.py`` (``evaluate_style_transfer``; the code the
aggregation notebook ``agg.ipynb`` runs), ``benchmark_tasks/rudetox/utils.py`` (the
lm-evaluation-harness filter ``ruDetoxScoring``) and ``modules/scoring/src/tasks/rudetox.py``;
they descend from the RUSSE-2022 evaluation (s-nlp/russe_detox_2022 at 6efda7cb,
``evaluation/ru_detoxification_metrics.py``), whose ``prepare_target_label`` and
``classify_texts`` they copy (MERA adds the sigmoid branch for single-logit models).

Per pair (x = toxic input, y = output, stripped of surrounding whitespace as the
official code strips its predictions):

- STA = softmax(``IlyaGusev/rubertconv_toxic_clf``(y))[0]: ``style_target_label=0``,
  class 0 = non-toxic;
- SIM = softmax(``s-nlp/rubert-base-cased-conversational-paraphrase-v1``(x, y))[k] with
  k = ``label2id["paraphrase"]``: the pair in that order (input first, output second),
  one direction only (``bidirectional=False``); a model without a ``paraphrase`` label
  is refused, as the official ``prepare_target_label`` refuses it;
- FL = softmax(``s-nlp/ruRoberta-large-RuCoLa-v1``(y))[1]: class 1 = acceptable, the
  output alone (not relative to the input, unlike RUSSE-2022);
- J = STA x SIM x FL per sentence, the system score is the mean;
- calibrated: each axis through its own calibrator (the official code applies
  ``IsotonicRegression.predict(x[:, None])``, fitted on human labels, clipped to
  [0, 1]), then J recomputed from the calibrated axes.

Texts are tokenised with ``truncation=True, max_length=512`` (the pool keeps at most the
model's positions, 512 for all three) and a single logit would be read through a
sigmoid, as ``classify_texts`` does. The official code batches 32 texts padded together;
the pool sorts by length before batching, which changes nothing but float rounding.

Calibrators: the official code unpickles ``score_calibrations_ru.pkl`` (three
scikit-learn ``IsotonicRegression`` objects in the notebook; the benchmark's filter
hard-codes one isotonic calibrator for all three axes). Unpickling runs arbitrary code,
so this preset never reads a pickle: it applies calibrators fitted by this project on
human judgements and kept as JSON (:mod:`detox_core.calibration.fitted`: fitted
on Human vs automatic or with ``python -m detox_core fit-calibrators``), or the
benchmark's published isotonic map copied as numbers from its filter
(:mod:`.rudetox_mera_published`, ``fit-calibrators --published``). Without any it runs
raw, and its signature and the Calibrated switch say why.

chrF: the original's ``run_evaluation`` prints a ``Ref-ChrF`` column (0-100) that its
``evaluate_style_transfer`` never computes; here it is sacrebleu's sentence chrF against
the references (:mod:`detox_core.metrics.chrf`) on the project's 0-1 scale.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core.errors import DetoxInputError
from detox_core.calibration import fitted as fitted_calibration
from detox_core.metrics.base import Preset, Signature, StepProgress, check_pairs, make_score_frame
from detox_core.metrics.chrf import sentence_chrf
from detox_core.calibration.fitted import CalibratorSet
from detox_core.metrics.registry import register_preset

#: The label the official code asks of the paraphrase classifier (``meaning_target_label``).
PARAPHRASE_LABEL = "paraphrase"


@register_preset
class RudetoxMera(Preset):
    """MERA ruDetox (see the module docstring)."""

    name = "rudetox-mera"
    version = "1"
    title = "MERA ruDetox (GPU models, fitted calibrators)"
    label = "MERA ruDetox"
    languages = ("ru",)  # three Russian models
    description = ("The ruDetox task of the MERA benchmark: a Russian toxicity classifier, a paraphrase classifier "
                   "and a RuCoLa acceptability model, each axis through calibrators fitted on human judgements.")
    model_kinds = {"sta": "classifier", "sim": "classifier", "fl": "classifier"}
    needs_download = True
    axis_help = {
        "sta": "Style accuracy: P(non-toxic) of the output by rubertconv_toxic_clf (class 0); calibrated = the "
        "share of such outputs people judge non-toxic. 0-1.",
        "sim": "Meaning: P(paraphrase) of the pair (input, output) by a conversational RuBERT paraphrase "
        "classifier; calibrated = the share of such pairs people judge same-meaning. 0-1.",
        "fl": "Fluency: P(acceptable) of the output by ruRoberta-large-RuCoLa (class 1), the output alone; "
        "calibrated = the share of such outputs people judge fluent. 0-1.",
        "j": "J = STA x SIM x FL per sentence (from the calibrated axes when calibrated), averaged. 0-1.",
    }

    def __init__(self, pool=None, models=None, sources=None, calibrators: CalibratorSet | str | Path | None = None):
        """
        Args:
            calibrators: a fitted set, or a JSON file of one; default: the set saved for
                this preset (:func:`fitted_calibration.saved_path`), or none.
        """
        super().__init__(pool, models, sources)
        if isinstance(calibrators, (str, Path)):
            calibrators = fitted_calibration.load(Path(calibrators))
        self.calibrators = calibrators if calibrators is not None else fitted_calibration.load_saved(self.name)

    @classmethod
    def default_models(cls) -> dict[str, str]:
        return {
            "sta": "IlyaGusev/rubertconv_toxic_clf",
            "sim": "s-nlp/rubert-base-cased-conversational-paraphrase-v1",
            "fl": "s-nlp/ruRoberta-large-RuCoLa-v1",
        }

    @classmethod
    def has_calibration(cls) -> bool:
        """Whether calibrators were fitted and saved for this preset (a damaged file: no)."""
        try:
            return fitted_calibration.load_saved(cls.name) is not None
        except DetoxInputError:
            return False

    @classmethod
    def calibration_note(cls) -> str:
        """Why the Calibrated switch is off, or which calibrators it applies (plain text: it names
        the judgements they were fitted on, which may be a user's file name)."""
        try:
            saved = fitted_calibration.load_saved(cls.name)
        except DetoxInputError as err:
            return f"The saved calibrators cannot be read ({err}); fit them again."
        if saved is None:
            return ("No calibrator fitted yet: scores are raw. Fit them from human judgements on Human vs automatic "
                    "(Calibration) or with python -m detox_core fit-calibrators (with its published option: MERA's "
                    "own map).")
        return f"Calibrators {saved.describe()}; off = raw scores."

    def calibration_identity(self) -> str:
        """What cached scores must be keyed by besides the models: the calibrators' hash."""
        return self.calibrators.digest() if self.calibrators else "raw"

    def raw_axes(self, inputs, outputs, progress: StepProgress | None = None) -> dict[str, np.ndarray]:
        """The uncalibrated STA, SIM, FL of every pair (outputs already stripped)."""
        pool = self.get_pool()
        src = self.sources.get

        def step(name: str) -> Callable[[int, int], None] | None:
            return (lambda done, total: progress(name, done, total)) if progress else None

        sta = pool.probabilities(self.models["sta"], outputs, role="sta", progress=step("STA"), source=src("sta"))
        labels = pool.get(self.models["sim"], "classifier", "sim", src("sim")).id2label
        found = [idx for idx, name in labels.items() if name == PARAPHRASE_LABEL]
        if not found:
            raise DetoxInputError(f"the SIM model {self.models['sim']} has no {PARAPHRASE_LABEL!r} label; its labels: "
                                  f"{', '.join(map(str, labels.values()))}")
        sim = pool.pair_probabilities(self.models["sim"], list(inputs), list(outputs), role="sim",
                                      progress=step("SIM"), source=src("sim"))
        fl = pool.probabilities(self.models["fl"], outputs, role="fl", progress=step("FL"), source=src("fl"))
        if fl.shape[1] < 2:  # one logit: its sigmoid, column 0 (classify_texts)
            fl = np.repeat(fl, 2, axis=1)
        return {"sta": sta[:, 0], "sim": sim[:, int(found[0])] if sim.shape[1] > 1 else sim[:, 0], "fl": fl[:, 1]}

    def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None, langs=None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        outputs = [str(o).strip() for o in outputs]
        raw = self.raw_axes(list(inputs), outputs, progress)
        use = calibrated and self.calibrators is not None
        on = {a: self.calibrators.axes[a].predict(raw[a]) for a in raw} if use else raw
        return make_score_frame(raw["sta"], raw["sim"], raw["fl"], sentence_chrf(outputs, refs),
                                self.signature(calibrated), sta=on["sta"], sim=on["sim"], fl=on["fl"])

    def signature(self, calibrated: bool = True) -> Signature:
        sig = super().signature(calibrated and self.calibrators is not None)
        pool = self.get_pool()
        sig.models = {role: pool.info(mid, self.model_kinds[role], role, self.sources.get(role))
                      for role, mid in self.models.items()}
        if self.calibrators is None:
            sig.calibration = {"type": "none", "note": "no calibrator fitted for this preset: raw scores"}
        elif calibrated:
            sig.calibration = self.calibrators.signature()
        else:
            sig.calibration = {"type": "none", "note": "calibration switched off"}
        return sig
