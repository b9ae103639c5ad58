"""What every metric returns: a score frame with a signature.

A score frame has one row per (input, output) pair and the columns ``sta``, ``sim``,
``fl``, ``j``, the reference columns ``chrf``, ``bleu``, ``rouge_l``, ``bertscore``
(:mod:`detox_core.metrics.reference`) and the uncalibrated ``sta_raw``, ``sim_raw``,
``fl_raw``, ``j_raw``. Its ``attrs["signature"]`` records everything the numbers depend on: the
preset, its version, the models (ids, where they were loaded from, revisions),
the calibration and the library version. Same inputs + same signature = same numbers.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from detox_core import extras
from detox_core.version import __version__
from detox_core.errors import DetoxInputError
from detox_core.calibration.rotation import Calibration
from detox_core.metrics.chrf import chrf_signature
from detox_core.metrics.reference import add_reference_columns
from detox_core.models import ModelPool, default_pool
from detox_core.vocab import RAW_COLUMNS, REFERENCE_METRIC_COLUMNS, SCORE_COLUMNS, axis_help, language_name


@dataclass
class Signature:
    """Everything a score frame's numbers depend on."""

    preset: str
    preset_version: str
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    calibration: dict[str, Any] | None = None
    calibrated: bool = True
    chrf: str = ""
    library: str = __version__

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def signature_text(sig: Mapping[str, Any], **extra: str) -> str:
    """A signature in one line, as sacrebleu prints its own: ``key:value`` fields joined by
    ``|``, e.g. ``preset:<name>|version:1|calibrated:yes|calibration:rotation-1a2b3c4d|
    sta:<model id>@1a2b3c4d|...|chrf:chrF2(nc=6,nw=0,space=no,eff=yes)@sacrebleu-2.6.0|lib:0.1.0``.

    Only what made the numbers: each model that ran (its id and the first 8 characters of its
    revision, and its dtype when not float32); ``calibrated`` only for a preset that has a
    calibration, and the calibration's short hash only when it was applied; chrF only when
    it was computed (references were given). ``extra`` fields (the languages, how they were
    found) go before ``lib``. Two score tables with the same text were made the same way. A
    string, so a column holding it survives ``concat`` and ``merge``, unlike ``DataFrame.attrs``."""
    fields = [f"preset:{sig.get('preset', '?')}", f"version:{sig.get('preset_version', '?')}"]
    cal = sig.get("calibration")
    applied = bool(sig.get("calibrated", True))
    if cal:
        fields.append(f"calibrated:{'yes' if applied else 'no'}")
        kind = cal.get("type", "rotation") if isinstance(cal, Mapping) else "rotation"
        if applied and kind != "none":
            digest = hashlib.sha1(json.dumps(cal, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:8]
            fields.append(f"calibration:{kind}-{digest}")
    for role, model in sorted((sig.get("models") or {}).items()):
        if not isinstance(model, Mapping):
            continue
        ident = str(model.get("id", "?"))
        rev = str(model.get("revision") or "")
        if rev:  # a commit hash by its first 8 hex digits; any other revision (a package's) whole
            ident += "@" + (rev[:8] if re.fullmatch(r"[0-9a-f]{12,}", rev) else rev)
        if model.get("dtype") and model.get("dtype") != "float32":
            ident += f"+{model['dtype']}"
        fields.append(f"{role}:{ident}")
    if sig.get("chrf"):
        fields.append(f"chrf:{sig['chrf']}")
    fields += [f"{k}:{v}" for k, v in extra.items()]
    fields.append(f"lib:{sig.get('library', __version__)}")
    return "|".join(field.replace("|", "%7C") for field in fields)  # a | in a value (a path) cannot split it


def make_score_frame(
    sta_raw: np.ndarray,
    sim_raw: np.ndarray,
    fl_raw: np.ndarray,
    chrf: np.ndarray,
    signature: Signature,
    sta: np.ndarray | None = None,
    sim: np.ndarray | None = None,
    fl: np.ndarray | None = None,
) -> pd.DataFrame:
    """Assemble a score frame; J is the per-sentence product of the three axes. The
    reference columns other than chrF start empty (NaN): :meth:`Preset.score` fills them."""
    sta = sta_raw if sta is None else sta
    sim = sim_raw if sim is None else sim
    fl = fl_raw if fl is None else fl
    frame = pd.DataFrame(
        {
            "sta": sta, "sim": sim, "fl": fl, "j": np.asarray(sta) * np.asarray(sim) * np.asarray(fl), "chrf": chrf,
            "sta_raw": sta_raw, "sim_raw": sim_raw, "fl_raw": fl_raw,
            "j_raw": np.asarray(sta_raw) * np.asarray(sim_raw) * np.asarray(fl_raw),
        }
    ).astype("float64")
    for col in REFERENCE_METRIC_COLUMNS:
        if col not in frame:
            frame[col] = np.nan
    frame = frame[[*SCORE_COLUMNS, *RAW_COLUMNS]]
    if frame["chrf"].isna().all():
        signature.chrf = ""  # no references, no chrF: the signature names only what made the numbers
    frame.attrs["signature"] = signature.as_dict()
    return frame


def system_scores(frame: pd.DataFrame) -> dict[str, float]:
    """System-level scores: the mean of each per-sentence column."""
    return {c: float(frame[c].mean()) for c in (*SCORE_COLUMNS, *RAW_COLUMNS) if c in frame}


#: progress(step name, done, total)
StepProgress = Callable[[str, int, int], None]
#: The step a preset tells while it loads its models before the first pair (done 0 of the pairs).
LOADING_STEP = "loading"
#: The step a preset tells as pairs are scored (done and total count pairs).
PAIRS_STEP = "pairs"


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
    """A named, versioned recipe that scores (input, output[, references]) pairs.

    A subclass registered with :func:`detox_core.metrics.registry.register_preset`
    appears in the app's preset picker, its model settings, the CLI's choices and the
    leaderboard's grouping, by what it declares here.

    Class attributes:
        name: registry key, recorded in every signature.
        version: bumped whenever its numbers change.
        title: a long name (model settings, CLI help).
        label: the picker's short name.
        description: one sentence for people choosing a preset.
        model_kinds: role (``sta``/``sim``/``fl``) -> how the pool loads its model; the
            roles a ``--model ROLE=DIR`` may replace.
        calibration: the preset's own calibration (switchable off), or None.
        axis_help: axis key -> what the number measures under this recipe, where it
            differs from the generic wording of :mod:`detox_core.vocab`.
        needs_download: its models come from the model hub.
        extra: the extra of pyproject.toml its models need (``"models"`` by default; None: the
            bare package runs it); :meth:`unavailable` says when it is not installed.
        languages: the ISO codes of the languages its models cover, or None for any
            language (a recipe without language-specific models).
        companions: role -> the id of another model whose files that role's model is
            read with (a tokenizer, an encoder's config); mapped to local folders like
            model ids.
        axis_agreement: axis -> the measured sentence-level ROC-AUC of that axis's score
            against people's judgement of the same axis (the RUSSE-2022 human sample); an
            axis left out has not been measured. Explanations of a low J name an axis as
            its reason only where this is high enough
            (:data:`detox_core.submissions.explain.RELIABLE_AUC`).

    Every subclass's :meth:`score` also fills the reference columns it leaves empty
    (BLEU, ROUGE-L, BERTScore; chrF when it has none) from the registry of
    :mod:`detox_core.metrics.reference`, after its own scoring: one place for every recipe.
    """

    name: ClassVar[str]
    version: ClassVar[str]
    title: ClassVar[str]
    label: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: role -> how the pool loads that role's model
    model_kinds: ClassVar[dict[str, str]] = {}
    calibration: ClassVar[Calibration | None] = None
    axis_help: ClassVar[dict[str, str]] = {}
    needs_download: ClassVar[bool] = True
    #: The extra of pyproject.toml its models need (:mod:`detox_core.extras`); None: the bare package runs it.
    extra: ClassVar[str | None] = "models"
    #: Each run is billed by someone (a paid API): organizers only unless they open it to
    #: visitors (:mod:`detox_core.llm.access`).
    paid: ClassVar[bool] = False
    languages: ClassVar[tuple[str, ...] | None] = None
    #: language code -> what is weaker in that language (the pages name it beside the scores)
    weak_parts: ClassVar[dict[str, str]] = {}
    #: STA is P(neutral) of the output alone, so scoring the input as its own output gives
    #: the input's P(neutral) (Live scoring's "more toxic" flag); False for recipes whose
    #: STA compares the output with the input (CLS-NEW, an LLM's pairwise question).
    sta_of_text_alone: ClassVar[bool] = True
    companions: ClassVar[dict[str, str]] = {}
    axis_agreement: ClassVar[dict[str, float]] = {}
    #: the judged samples (``judged_pairs`` files) whose labels the recipe's design was chosen with in
    #: view, by edition: a figure measured there is "chosen on", not held out, and the pages say so
    chosen_on: ClassVar[dict[str, str]] = {}
    #: role -> model id
    models: dict[str, str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("score")
        if own is None or getattr(own, "_adds_references", False) or getattr(own, "__isabstractmethod__", False):
            return

        # A recipe that reads no language (one registered by a plugin, written before ``langs``) is
        # not told it.
        reads_langs = "langs" in inspect.signature(own).parameters

        @functools.wraps(own)
        def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None, langs=None):
            told = {"langs": langs} if reads_langs else {}
            frame = own(self, inputs, outputs, references, calibrated=calibrated, progress=progress, **told)
            refs = check_pairs(inputs, outputs, references)
            return add_reference_columns(frame, list(outputs), refs, self.get_pool())

        score._adds_references = True  # type: ignore[attr-defined]
        cls.score = score

    def __init__(self, pool: ModelPool | None = None, models: dict[str, str] | None = None,
                 sources: dict[str, str] | None = None) -> None:
        """
        Args:
            pool: the model pool (default: the process-wide one).
            models: role -> model id, replacing the defaults.
            sources: role -> local folder to load that role's model from, for this
                preset object only (the signature keeps the model's id).
        """
        self.pool = pool
        self.models = {**self.default_models(), **(models or {})}
        self.sources = dict(sources or {})

    @classmethod
    def roles(cls) -> tuple[str, ...]:
        """The model roles of the preset (empty for one that runs no hub model)."""
        return tuple(cls.default_models())

    @classmethod
    def has_calibration(cls) -> bool:
        """Whether the preset has a calibration that can be switched off."""
        return cls.calibration is not None

    @classmethod
    def display(cls, calibrated: bool = True) -> str:
        """How pages name the preset; a calibrated one without its calibration says so."""
        return (cls.label or cls.name) + ("" if calibrated or not cls.has_calibration() else " · raw")

    @classmethod
    def covers(cls, lang: str) -> bool:
        """Whether the preset's models cover language ``lang`` (an ISO code)."""
        return cls.languages is None or lang in cls.languages

    @classmethod
    def missing_parts(cls) -> str | None:
        """What of the preset cannot run on this machine while the rest still scores (said
        on the pages and recorded in the signature), or None when everything runs."""
        return None

    @classmethod
    def caveats(cls, source: str, output: str, lang: str | None = None) -> list[str]:
        """The preset's known weak cases that apply to this pair, each in a sentence of fixed
        words and numbers (a card says them under the scores); none by default."""
        return []

    @classmethod
    def coverage(cls) -> str:
        """Its languages in words: "any language", "Russian only", "9 languages (am, ar, ...)"."""
        if cls.languages is None:
            return "any language"
        if len(cls.languages) == 1:
            return f"{language_name(cls.languages[0])} only"
        return f"{len(cls.languages)} languages ({', '.join(cls.languages)})"

    @classmethod
    def help_for(cls, axis: str) -> str:
        """What axis ``axis`` measures under this preset, and its range."""
        return cls.axis_help.get(axis) or axis_help(axis)

    @classmethod
    def default_models(cls) -> dict[str, str]:
        return {}

    @classmethod
    def scores_identity(cls) -> list | None:
        """What the preset's numbers depend on, when the class alone says it (its version and
        the files of models it ships: the caches of measured figures are keyed by it); None:
        its version and where each of its models loads from, read from an instance."""
        return None

    @classmethod
    def warm_steps(cls) -> list[tuple[str, Callable[[], object]]]:
        """What a server loads for this preset at its start besides the models of
        :attr:`model_kinds` (:mod:`detox_core.metrics.warmup` loads those through the pool when
        they are on this machine), each step named for people; none by default."""
        return []

    @classmethod
    def unavailable(cls) -> str | None:
        """Why the preset cannot run on this server and what to set, or None when it can
        try (a preset whose models may fail to load says so when it runs): by default, the
        extra its models need (:attr:`extra`) when it is not installed."""
        return extras.why_missing(cls.extra, f"the {cls.label or cls.name} preset") if cls.extra else None

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
        langs: Sequence[str] | None = None,
    ) -> pd.DataFrame:
        """Score every pair; returns a score frame (one row per pair).

        ``langs``: the language (ISO code) of each pair, for the recipes that read it (the
        embedded preset picks its models by it, an LLM judge names it in its prompts); the
        others score any language the same way. :func:`detox_core.score` detects it when it
        is not given."""

    def signature(self, calibrated: bool = True) -> Signature:
        return Signature(preset=self.name, preset_version=self.version, calibrated=calibrated, chrf=chrf_signature())
