"""How far a preset ranks systems as people do, language by language.

The TextDetox editions ship human judgements at system level only: the TextDetox 2024
final human evaluation (STA, SIM, FL and J per team and language, the edition's
``leaderboard_human_axes.csv``). Six of its teams' outputs on 80 test inputs per language
ship as the nine-language meta-evaluation sample (the edition's ``judged_pairs``), with
five LLM judges' labels of every pair. Per language this measures:

- system level: Spearman of the six systems' mean J of the preset on the sample against
  their human J, with a 95% interval from resampling the 80 inputs (the human side is
  taken as given). Six systems: two neighbours swapped move the figure by 0.06, two systems
  two places apart by 0.23;
- sentence level: ROC-AUC of the preset's J against two LLM judges' J labels
  (gpt-4.1-mini few-shot and Llama-3.1-8B tuned; J >= 1 is yes).

Nothing in any preset is fitted or tuned to the human table; this is its test. The result
is kept as JSON beside the RUSSE-2022 measurement (:mod:`detox_core.analysis.preset_agreement`),
keyed by what the numbers depend on.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

import detox_core.metrics
from detox_core import config
from detox_core.analysis import preset_agreement
from detox_core.analysis.preset_agreement import N_BOOT, WEAK_SPEARMAN, keep
from detox_core.analysis.meta_eval import scorer_identity
from detox_core.data.judge_labels import load_llm_judgements, load_pairs
from detox_core.editions import editions
from detox_core.editions.base import Edition
from detox_core.stats.agreement import paired_system_spearman, roc_auc
from detox_core.stats.bootstrap import percentile_interval
from detox_core.metrics import preset_class

#: The per-language human table of an edition with a judged sample.
HUMAN_AXES = "leaderboard_human_axes.csv"
#: The LLM judges the sentence-level figures are measured against (file stems).
JUDGES = ("gpt-4.1-mini_fewshot", "llama_31_8b_tuned")
JUDGE_WORDS = {"gpt-4.1-mini_fewshot": "gpt-4.1-mini few-shot", "llama_31_8b_tuned": "Llama-3.1-8B tuned"}
#: A sample system's name -> its team's name in the human table, where they differ.
TEAM_NAMES = {"Team_SINAI": "Team SINAI"}


@dataclass
class LanguageFigure:
    lang: str
    n_systems: int
    n_inputs: int
    spearman: list[float]  # point, low, high
    system_j: dict[str, float] = field(default_factory=dict)
    human_j: dict[str, float] = field(default_factory=dict)
    auc: dict[str, float] = field(default_factory=dict)  # LLM judge -> sentence-level ROC-AUC of J

    @property
    def weak(self) -> bool:
        return not self.spearman[0] >= WEAK_SPEARMAN


@dataclass
class LanguageAgreement:
    preset: str
    calibrated: bool
    edition: str
    figures: dict[str, LanguageFigure]
    measured: str = ""
    seconds: float = 0.0

    @property
    def mean_spearman(self) -> float:
        values = [f.spearman[0] for f in self.figures.values() if f.spearman[0] == f.spearman[0]]
        return float(np.mean(values)) if values else float("nan")

    def weak_languages(self, languages=None) -> list[str]:
        return [c for c, f in self.figures.items() if f.weak and (languages is None or c in languages)]

    def table(self) -> pd.DataFrame:
        """One row per language: Spearman with its interval, the systems, the judges' AUCs."""
        rows = []
        for c, f in self.figures.items():
            row = {"lang": c, "spearman": f.spearman[0], "low": f.spearman[1], "high": f.spearman[2],
                   "systems": f.n_systems, "inputs": f.n_inputs, "weak": f.weak}
            row.update({f"auc {j}": f.auc.get(j, float("nan")) for j in JUDGES})
            rows.append(row)
        return pd.DataFrame(rows)

    @classmethod
    def from_json(cls, raw: dict) -> "LanguageAgreement":
        raw = dict(raw)
        raw["figures"] = {c: LanguageFigure(**f) for c, f in raw["figures"].items()}
        return cls(**raw)


def measurable_edition(root: Path | None = None) -> Edition | None:
    """The edition whose judged sample and per-language human table are in the data folder."""
    root = root or config.data_dir()
    for e in editions():
        if e.multilingual and e.judged_pairs and e.path(e.judged_pairs, root).is_file() \
                and e.path(HUMAN_AXES, root).is_file():
            return e
    return None


def _files(edition: Edition, root: Path) -> list[Path]:
    return [edition.path(edition.judged_pairs, root), edition.path(HUMAN_AXES, root),
            *(edition.path(j, root) for j in edition.judges if Path(j).stem in JUDGES)]


def _identity(preset: str, calibrated: bool, edition: Edition, root: Path, pool) -> str:
    stamp = [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in _files(edition, root) if p.is_file()]
    ident = ["languages", preset, calibrated, scorer_identity(preset, pool, None), stamp, sorted(TEAM_NAMES.items())]
    return hashlib.sha1(json.dumps(ident, default=str).encode("utf-8")).hexdigest()[:20]


def _cache_path(key: str) -> Path:
    return config.data_dir() / "cache" / "agreement" / f"languages-{key}.json"


def human_j(edition: Edition, root: Path | None = None) -> pd.DataFrame:
    """The human table: ``team``, ``lang``, ``j`` (and the other axes)."""
    return pd.read_csv(edition.path(HUMAN_AXES, root or config.data_dir()))


def measure(preset: str, calibrated: bool = True, pool=None, progress=None,
            edition: Edition | None = None) -> LanguageAgreement:
    """Score the judged sample with ``preset`` in the languages it covers (each language told
    to the preset) and measure its agreement with people per language (and keep it)."""
    root = config.data_dir()
    edition = edition or measurable_edition(root)
    if edition is None:
        raise FileNotFoundError("no edition with a judged sample and a per-language human table in the data folder")
    started = time.time()
    pairs = load_pairs(edition.path(edition.judged_pairs, root))
    people = human_j(edition, root)
    labels = {}
    for rel in edition.judges:
        stem = Path(rel).stem
        if stem in JUDGES and edition.path(rel, root).is_file():
            labels[stem] = load_llm_judgements(edition.path(rel, root), pairs=pairs).set_index("id")

    covers = preset_class(preset).covers
    pairs = pairs[pairs["lang"].map({c: covers(c) for c in pairs["lang"].unique()})].reset_index(drop=True)
    if pairs.empty:
        raise ValueError(f"{preset} covers none of the judged sample's languages")
    frame = detox_core.metrics.score_frame(pairs["toxic_sentence"].tolist(), pairs["neutral_sentence"].tolist(),
                                     [[] for _ in range(len(pairs))], preset=preset, calibrated=calibrated, pool=pool,
                                     progress=progress, langs=pairs["lang"].tolist())
    pairs = pairs.assign(j=frame["j"].to_numpy(float))
    figures = {}
    for lang, g in pairs.groupby("lang", sort=False):
        table = people[people["lang"] == lang].set_index("team")["j"]
        wide = g.pivot_table(index="system", columns="toxic_sentence", values="j", aggfunc="first")
        systems = [s for s in wide.index if TEAM_NAMES.get(s, s) in table.index]
        by_system = {s: wide.loc[s].to_numpy(float) for s in systems}
        h = {s: float(table[TEAM_NAMES.get(s, s)]) for s in systems}
        rho = [float("nan")] * 3
        if len(systems) >= 3:  # fewer systems rank nothing: no resampling
            draws = paired_system_spearman(by_system, h, N_BOOT)
            rho = list(percentile_interval(float(draws[0]), draws[1:]))
        # A judge's J is 0 or 1; unlabelled pairs are NaN and left out.
        auc = {j: roc_auc(g["j"].to_numpy(float), lab["J"].reindex(g["id"]).to_numpy(float), positive_from=1)
               for j, lab in labels.items()}
        figures[str(lang)] = LanguageFigure(
            lang=str(lang), n_systems=len(systems), n_inputs=int(wide.shape[1]), spearman=rho,
            system_j={s: float(np.nanmean(v)) for s, v in by_system.items()}, human_j=h, auc=auc)
    result = LanguageAgreement(preset=preset, calibrated=calibrated, edition=edition.name, figures=figures,
                               measured=time.strftime("%Y-%m-%d %H:%M"), seconds=round(time.time() - started, 1))
    return keep(_MEMORY, _cache_path(_identity(preset, calibrated, edition, root, pool)), result)


#: Measurements of this process, also when the data folder is read-only.
_MEMORY: dict[str, LanguageAgreement] = {}


def shipped(preset: str) -> LanguageAgreement | None:
    """The shipped per-language measurement of ``preset`` (the embedded preset's: see
    :data:`detox_core.analysis.preset_agreement.SHIPPED_FILE`), or None."""
    figures = preset_agreement.shipped_figures()
    if figures.get("preset") != preset or "languages" not in figures:
        return None
    try:
        return LanguageAgreement.from_json(figures["languages"])
    except (TypeError, KeyError, AttributeError):  # a file of another shape: nothing shipped
        return None


def stored(preset: str, calibrated: bool = True, pool=None) -> LanguageAgreement | None:
    """The shipped measurement of the preset (:func:`shipped`), else the one kept here for the
    preset as it scores now, or None."""
    if (ship := shipped(preset)) is not None:
        return ship  # the same on every server, with or without the judged data here
    edition = measurable_edition()
    if edition is None:
        return None
    try:
        path = _cache_path(_identity(preset, calibrated, edition, config.data_dir(), pool))
        if path.stem in _MEMORY:
            return _MEMORY[path.stem]
        return LanguageAgreement.from_json(json.loads(path.read_text(encoding="utf-8")))
    except Exception:  # noqa: BLE001 - not measured yet, or a model that cannot be resolved here
        return None

