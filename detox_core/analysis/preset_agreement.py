"""How far a preset's ranking can be trusted: its measured agreement with people.

Wherever a preset ranks systems (Leaderboard, Compare, Submissions) the pages state this,
measured on every edition that ships human judgements (its ``human`` file) and the human
J of systems whose test outputs ship (its ``human_systems``):

- sentence level: ROC-AUC of the preset's J against human J over the judged pairs
  (J >= 0.5 is yes), with a 95% bootstrap interval over the pairs;
- system level: Spearman of the preset's mean J on each shipped system's test outputs
  against that system's human J, with a 95% interval from resampling the test inputs
  (the human side is taken as given).

No preset scores with anything fitted on these judgements (the embedded preset's heads
learnt from other data), so every pair is scored as any submission is. The result is kept as
JSON under ``data/cache/agreement/``, keyed by what the numbers depend on (the preset's
models and version, the data files), so a page reads it.

The embedded preset's figures also **ship** (:data:`SHIPPED_FILE`, written by ``detox agreement
--ship`` with its heads): every server states those, whatever it measured or not before, so a
link says the same thing on each; they apply while the preset scores as it did then
(:func:`shipped`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

import detox_core.metrics
from detox_core import config, data
from detox_core.data.io import give_user_mode
from detox_core.stats.agreement import agreement as sentence_agreement, paired_system_spearman
from detox_core.stats.bootstrap import percentile_interval
from detox_core.analysis.meta_eval import scorer_identity
from detox_core.editions import editions
from detox_core.editions.base import Edition

#: Below this system-level Spearman a ranking page warns that the preset's order is not people's.
WEAK_SPEARMAN = 0.8
N_BOOT = 1000
#: The shipped measurements: ``{"preset", "identity", "russian", "languages"}``.
SHIPPED_FILE = Path(__file__).resolve().parent.parent / "metrics" / "embedded" / "agreement.json"
_SHIPPED: list[dict] = []


def shipped_figures() -> dict:
    """The shipped measurements when they were made of the preset as it scores now, else ``{}``."""
    if not _SHIPPED:
        try:
            raw = json.loads(SHIPPED_FILE.read_text(encoding="utf-8"))
            current = json.loads(json.dumps(scorer_identity(raw["preset"], None, None), default=str))
            _SHIPPED.append(raw if raw.get("identity") == current else {})
        except (OSError, ValueError, KeyError):
            _SHIPPED.append({})
    return _SHIPPED[0]


def shipped(preset: str) -> "PresetAgreement | None":
    """The shipped Russian measurement of ``preset`` (the embedded preset's), or None."""
    figures = shipped_figures()
    if figures.get("preset") != preset or "russian" not in figures:
        return None
    try:
        return PresetAgreement(**figures["russian"])
    except TypeError:  # a file of another shape: nothing shipped, rather than a page that fails
        return None


@dataclass
class PresetAgreement:
    preset: str
    calibrated: bool
    edition: str
    languages: list[str]
    n_pairs: int
    auc: list[float]  # point, low, high
    n_systems: int
    spearman: list[float]  # point, low, high
    system_j: dict[str, float] = field(default_factory=dict)
    human_j: dict[str, float] = field(default_factory=dict)
    held_out: bool = False  # a fit on people scored: every figure from models that never saw the pairs
    fits: int = 0  # with a fit: how many models' rankings the system-level Spearman averages
    measured: str = ""
    seconds: float = 0.0

    @property
    def weak(self) -> bool:
        return not self.spearman[0] >= WEAK_SPEARMAN

    def sentence(self) -> str:
        auc, lo, hi = self.auc
        return f"sentence-level ROC-AUC vs human J {auc:.2f} [{lo:.2f}, {hi:.2f}] over {self.n_pairs:,} judged outputs"

    def system(self) -> str:
        rho, lo, hi = self.spearman
        if rho != rho:
            return f"system-level Spearman not measurable ({self.n_systems} systems)"
        mean = f", the mean over {self.fits} fits each ranking the systems it never saw" if self.fits else ""
        return f"system-level Spearman {rho:.2f} [{lo:.2f}, {hi:.2f}] over {self.n_systems} systems{mean}"


def measurable_editions(root: Path | None = None) -> list[Edition]:
    """Editions whose human judgements (in the data folder) and judged systems' outputs
    can measure agreement."""
    root = root or config.data_dir()
    return [e for e in editions() if e.human and e.human_systems and e.path(e.human, root).is_file()]


def _identity(preset: str, calibrated: bool, edition: Edition, root: Path, pool) -> str:
    files = [edition.path(edition.human, root), edition.split_path("test", root), *_system_files(edition, root).values()]
    stamp = [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files if p.is_file()]
    ident = [preset, calibrated, scorer_identity(preset, pool, None), stamp,
             sorted(edition.human_systems.items())]
    return hashlib.sha1(json.dumps(ident, default=str).encode("utf-8")).hexdigest()[:20]


def _system_files(edition: Edition, root: Path) -> dict[str, Path]:
    files = {p.name.removesuffix("_test.txt"): p for p in edition.output_files("test", root)}
    return {name: files[name] for name in edition.human_systems if name in files}


def _cache_path(key: str) -> Path:
    return config.data_dir() / "cache" / "agreement" / f"{key}.json"


def _system_spearman(j_by_system: dict[str, np.ndarray], human: dict[str, float]) -> list[float]:
    """Spearman of the systems' mean J against their human J, with its 95% interval over
    resampled inputs (the same resamples for every call)."""
    rho = paired_system_spearman(j_by_system, human, N_BOOT)
    return list(percentile_interval(float(rho[0]), rho[1:]))


def _test_split(edition: Edition, root: Path) -> tuple[list[str], list[list[str]]]:
    corpus = data.load_corpus(edition.split_path("test", root))
    refs = [[r for r in row if isinstance(r, str) and r] for row in
            corpus[[c for c in data.PARAPHRASE_COLUMNS if c in corpus]].itertuples(index=False)]
    return corpus["toxic_comment"].tolist(), refs


def _judged_refs(human: pd.DataFrame) -> list[list[str]]:
    return [[r] if isinstance(r, str) and r.strip() else [] for r in human["neutral_sentence_reference"]]


def measure(preset: str, calibrated: bool = True, edition: Edition | None = None, pool=None,
            progress=None) -> PresetAgreement:
    """Score the judged pairs and the judged systems' test outputs with ``preset`` and
    measure its agreement with people (and keep it). ``progress(step, done, total)``."""
    edition = edition or measurable_editions()[0]
    root = config.data_dir()
    started = time.time()
    human = data.load_human_judgements(edition.path(edition.human, root))
    inputs, test_refs = _test_split(edition, root)
    outputs = {n: data.load_submission(p, inputs=inputs)["neutral_sentence"].tolist()
               for n, p in _system_files(edition, root).items()}
    human_j = {n: edition.human_systems[n] for n in outputs}
    j = detox_core.metrics.score_frame(human["toxic_sentence"].tolist(), human["neutral_sentence"].tolist(),
                                 _judged_refs(human), preset=preset, calibrated=calibrated, pool=pool,
                                 progress=progress)["j"].to_numpy(float)
    by_system = {n: detox_core.metrics.score_frame(inputs, o, test_refs, preset=preset, calibrated=calibrated,
                                             pool=pool, progress=progress)["j"].to_numpy(float)
                 for n, o in outputs.items()}
    rho = _system_spearman(by_system, human_j) if len(by_system) >= 3 else [float("nan")] * 3
    system_j, fits = {n: float(np.nanmean(v)) for n, v in by_system.items()}, 0
    auc = sentence_agreement(j, human["J"].to_numpy(float), n_boot=N_BOOT).roc_auc
    result = PresetAgreement(
        preset=preset, calibrated=calibrated, edition=edition.name, languages=list(edition.languages),
        n_pairs=int(np.isfinite(j).sum()), auc=[float(x) for x in auc], n_systems=len(system_j), spearman=rho,
        system_j=system_j, human_j={n: human_j[n] for n in system_j}, held_out=False, fits=fits,
        measured=time.strftime("%Y-%m-%d %H:%M"), seconds=round(time.time() - started, 1))
    return keep(_MEMORY, _cache_path(_identity(preset, calibrated, edition, root, pool)), result)


#: Measurements of this process, also when the data folder is read-only.
_MEMORY: dict[str, PresetAgreement] = {}


def keep(memory: dict, path: Path, result):
    """Keep ``result`` in this process (``memory``, keyed by the file's stem) and as JSON at ``path``."""
    memory[path.stem] = result
    _save(path, result)
    return result


def _save(path: Path, result: PresetAgreement) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(asdict(result), fh, indent=2)
        give_user_mode(tmp)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only data folder: kept in this process's memory only


def stored(preset: str, calibrated: bool = True, edition: Edition | None = None, pool=None) -> PresetAgreement | None:
    """The shipped measurement of the preset (:func:`shipped`), else the one kept here for the
    preset as it scores now, or None."""
    if (ship := shipped(preset)) is not None and (edition is None or ship.edition == edition.name):
        return ship  # the same on every server, with or without the judged data here
    editions_ = [edition] if edition else measurable_editions()
    if not editions_:
        return None
    try:
        path = _cache_path(_identity(preset, calibrated, editions_[0], config.data_dir(), pool))
        if path.stem in _MEMORY:
            return _MEMORY[path.stem]
        return PresetAgreement(**json.loads(path.read_text(encoding="utf-8")))
    except Exception:  # noqa: BLE001 - not measured yet, or a model that cannot be resolved here
        return None
