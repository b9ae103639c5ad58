"""Human judgements beside automatic metrics: metric columns, joins, meta-evaluation.

Automatic metrics come from two places: scores the engine computes with a preset
(joined by system name and (input, output) text), and precomputed metric columns of a
human-evaluation file (the ``textdetox/humaneval_textdetox_ru`` files carry the original
GPU metrics' scores; the 2025 recipes are built from them by
:func:`detox_core.metrics.textdetox2025.add_2025_recipes`). :func:`meta_eval` measures
every metric's agreement with the human labels at sentence and system level.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

import detox_core.metrics
from detox_core import config, vocab
from detox_core.analysis.leaderboard import system_key
from detox_core.data.spreadsheet import unescape_cell
from detox_core.metrics.reference import REFERENCE_METRICS, add_reference_columns
from detox_core.metrics.registry import get_preset, has_calibration, preset_class
from detox_core.metrics.textdetox2025 import FILE_METRICS
from detox_core.models import default_pool
from detox_core.stats.agreement import agreement, system_agreement
from detox_core.vocab import HUMAN_AXES


def embedded_scores(frame: pd.DataFrame, cache_dir: Path | None = None, progress=None) -> pd.DataFrame:
    """The embedded preset's scores of every judged pair, kept on disk (see :func:`preset_scores`)."""
    return preset_scores(frame, "embedded", cache_dir=cache_dir, progress=progress)


def scorer_identity(preset: str, pool, models: dict[str, str] | None) -> list:
    """What a preset's numbers depend on besides the texts: its version and where each of
    its models loads from (a folder set for the server counts), or what the preset says of its
    own (:meth:`~detox_core.metrics.base.Preset.scores_identity`: the offline preset's heads)."""
    fixed = preset_class(preset).scores_identity()
    if fixed is not None:
        return fixed
    obj = get_preset(preset, pool=pool, models=models)
    where = {role: (obj.sources.get(role) or obj.get_pool().resolve(model_id)[0]) for role, model_id in obj.models.items()}
    ident = [preset, obj.version, sorted(where.items())]
    extra = getattr(obj, "calibration_identity", None)  # fitted calibrators change the numbers too
    return ident + [extra()] if extra else ident


def preset_scores(frame: pd.DataFrame, preset: str = "embedded", *, rows: np.ndarray | None = None, pool=None,
                  models: dict[str, str] | None = None, cache_dir: Path | None = None, progress=None,
                  cached_only: bool = False) -> pd.DataFrame | None:
    """A preset's scores of the judged pairs (``sta``, ``sim``, ``fl``, ``j``, ``chrf``; one
    row per row of ``frame``, NaN outside ``rows``), kept on disk.

    Scoring a judged sample (2,600 pairs for RUSSE-2022, 4,320 for the nine-language
    sample) takes seconds to minutes; the result is written under ``data/cache/`` keyed by
    the pairs' text, the preset and where its models load from, so a restarted server, or
    another one on the same data folder, reads it instead. ``rows`` (a boolean mask)
    scores only some rows (those in languages the preset covers). ``progress(step,
    done, total)`` follows the scoring. With ``cached_only`` nothing is scored: None
    when the scores are not kept yet.

    Raises:
        ScorerUnavailableError: a model of the preset cannot be loaded.
    """
    mask = np.ones(len(frame), dtype=bool) if rows is None else np.asarray(rows, dtype=bool)
    part = frame[mask]
    inputs, outputs = part["toxic_sentence"].tolist(), part["neutral_sentence"].tolist()
    ref_col = part["neutral_sentence_reference"] if "neutral_sentence_reference" in part else [""] * len(part)
    refs = [[r] if isinstance(r, str) and r else [] for r in ref_col]
    # Each pair's language, told to the preset (the embedded one picks its models by it).
    langs = [c if isinstance(c, str) and c else "ru" for c in part["lang"]] if "lang" in part else None
    identity = scorer_identity(preset, pool, models)
    digest = hashlib.sha1(json.dumps([identity, inputs, outputs, refs, langs], ensure_ascii=False, default=str)
                          .encode("utf-8")).hexdigest()[:20]
    path = (cache_dir or config.data_dir() / "cache") / f"{preset}-scores-{digest}.pkl"
    scores = _SCORES_MEMO.get(digest)
    if scores is None and path.is_file():
        try:
            cached = pd.read_pickle(path)
            if len(cached) == len(part):
                scores = _remember(digest, cached)
        except Exception:  # noqa: BLE001 - a damaged cache file is scored again and replaced
            pass
    if scores is None:
        if cached_only:
            return None
        if not len(part):
            scores = pd.DataFrame(columns=["sta", "sim", "fl", "j", "chrf"], dtype=float)
        else:  # the judged pairs are scored as any submission is
            scores = detox_core.metrics.score_frame(inputs, outputs, refs, preset=preset, pool=pool, models=models,
                                              progress=progress, langs=langs)
        _remember(digest, scores)
        _keep(scores, path)
    if mask.all():
        return scores
    out = pd.DataFrame(np.nan, index=range(len(frame)), columns=["sta", "sim", "fl", "j", "chrf"])
    for col in out.columns:
        if col in scores:
            out.loc[np.flatnonzero(mask), col] = scores[col].to_numpy(float)
    return out


#: The last few judged files' preset scores, in memory (also when the data folder is read-only).
_SCORES_MEMO: dict[str, pd.DataFrame] = {}


def _remember(digest: str, scores: pd.DataFrame, keep: int = 4) -> pd.DataFrame:
    _SCORES_MEMO.pop(digest, None)
    _SCORES_MEMO[digest] = scores
    while len(_SCORES_MEMO) > keep:
        _SCORES_MEMO.pop(next(iter(_SCORES_MEMO)))
    return scores


def add_preset_scores(frame: pd.DataFrame, scores: pd.DataFrame, preset: str) -> pd.DataFrame:
    """Add a score frame's STA/SIM/FL/J as ``<preset>:sta`` ... columns (row for row)."""
    out = frame.copy()
    for axis in HUMAN_AXES:
        out[f"{preset}:{axis}"] = scores[axis].to_numpy(float)
    return out


def _judged_pairs(frame: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(system key, input, output) of every judged row, as the joins match them."""
    return list(zip(frame["participant_name"].map(system_key), frame["toxic_sentence"].str.strip(),
                    frame["neutral_sentence"].str.strip()))


def _fill_scores(out: pd.DataFrame, pairs: list[tuple[str, str, str]], key: str, scores: pd.DataFrame,
                 preset: str) -> int:
    """Fill ``<preset>:<axis>`` columns of ``out`` from one system's per-sentence scores,
    row by row where the (system, input, output) matches; other rows keep their value.
    Returns how many judged rows matched."""
    lookup = {(key, str(i).strip(), str(o).strip()): vals for i, o, vals in
              zip(scores["input"], scores["output"], scores[list(HUMAN_AXES)].itertuples(index=False))}
    for pos, axis in enumerate(HUMAN_AXES):
        col = f"{preset}:{axis}"
        values = pd.Series([lookup[p][pos] if p in lookup else np.nan for p in pairs], index=out.index)
        out[col] = out[col].where(out[col].notna(), values) if col in out else values
    return sum(1 for p in pairs if p in lookup)


def join_score_files(frame: pd.DataFrame, folder: Path) -> pd.DataFrame:
    """Add the engine's scores from a ``score --out`` folder as ``<preset>:<axis>`` columns.

    A row of ``frame`` takes the scores of the file whose submission name matches its
    ``participant_name`` and whose (input, output) pair equals its own; rows without a
    match stay NaN (and drop out of that metric's statistics).
    """
    out = frame.copy()
    pairs = _judged_pairs(frame)
    for path in sorted(Path(folder).glob("*.scores.csv")):
        sig_path = path.with_name(path.name.replace(".scores.csv", ".signature.json"))
        preset = json.loads(sig_path.read_text(encoding="utf-8"))["preset"] if sig_path.is_file() else "scores"
        scores = pd.read_csv(path, keep_default_na=False, na_values=[""])
        for col in ("input", "output"):  # the texts as scored (the file's cells are spreadsheet-safe)
            if col in scores:
                scores[col] = scores[col].map(lambda v: unescape_cell(v) if isinstance(v, str) else v)
        _fill_scores(out, pairs, system_key(path.name.removesuffix(".scores.csv") + ".txt"), scores, preset)
    return out


def join_stored(frame: pd.DataFrame, store) -> pd.DataFrame:
    """Add scores of submissions stored by the app (any preset) as ``<preset>:<axis>``
    columns, matched by system name and (input, output) text like :func:`join_score_files`."""
    return join_stored_report(frame, store)[0]


def join_stored_report(frame: pd.DataFrame, store) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`join_stored`, and what it joined: one row per stored submission whose name
    matches a judged system (``submission``, ``system``, ``preset``, ``columns`` added,
    ``rows`` of the judgements matched by input and output text)."""
    out = frame.copy()
    pairs = _judged_pairs(frame)
    wanted = {key: name for key, name in zip(frame["participant_name"].map(system_key), frame["participant_name"])}
    report = []
    for row in store.list().itertuples(index=False):
        key = system_key(row.name)
        if key in wanted:
            preset = row.preset if row.calibrated or not has_calibration(row.preset) else f"{row.preset}-raw"
            matched = _fill_scores(out, pairs, key, store.scores(row.id), preset)
            report.append({"submission": row.name, "system": wanted[key], "preset": preset,
                           "columns": ", ".join(f"{preset}:{a}" for a in HUMAN_AXES), "rows": matched})
    return out, pd.DataFrame(report, columns=["submission", "system", "preset", "columns", "rows"])


def add_reference_metrics(frame: pd.DataFrame, pool=None) -> pd.DataFrame:
    """Add the reference metrics (:mod:`detox_core.metrics.reference`: chrF, BLEU, ROUGE-L,
    BERTScore when turned on) of each judged output against its ``neutral_sentence_reference``
    as ``<label>:j`` columns (``BLEU:j``): compared with human J, as the RUSSE-2022 study of
    automatic against manual evaluation did. A file without references gains nothing; a
    metric that is not computed (BERTScore switched off) stays NaN and out of the tables."""
    if "neutral_sentence_reference" not in frame:
        return frame

    refs = [[r.strip()] if isinstance(r, str) and r.strip() else [] for r in frame["neutral_sentence_reference"]]
    if not any(refs):
        return frame
    outputs = frame["neutral_sentence"].fillna("").astype(str).tolist()
    scored = add_reference_columns(pd.DataFrame(index=range(len(frame))), outputs, refs, pool or default_pool())
    out = frame.copy()
    for key in REFERENCE_METRICS:
        if scored[key].notna().any():
            out[f"{vocab.label(key)}:j"] = scored[key].to_numpy(float)
    return out


def available_metrics(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Human axis -> automatic metric columns of ``frame`` that estimate it."""
    out: dict[str, list[str]] = {axis: [] for axis in HUMAN_AXES}
    for col in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[col]) or frame[col].notna().sum() < 2:
            continue
        if col in FILE_METRICS:
            out[FILE_METRICS[col]].append(col)
        elif ":" in col and col.split(":", 1)[1] in HUMAN_AXES:
            out[col.split(":", 1)[1]].append(col)
    return out


def meta_eval(frame: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """For each human axis, every available metric's agreement at sentence and system level.

    Columns: ``axis``, ``human``, ``metric``, ``level`` (sentence/system), ``n``, and
    ``spearman``/``pearson``/``roc_auc``/``ranking_accuracy`` with ``_low``/``_high``;
    sorted by axis, level and agreement (ROC-AUC at sentence level, Spearman at system
    level).
    """
    rows = []
    systems = frame["participant_name"].to_numpy()
    for axis, metrics in available_metrics(frame).items():
        if HUMAN_AXES[axis] not in frame:
            continue
        human = frame[HUMAN_AXES[axis]].to_numpy(dtype=float)
        for metric in metrics:
            values = frame[metric].to_numpy(dtype=float)
            scored = ~np.isnan(values)
            a = agreement(values, human, n_boot=n_boot, seed=seed)
            row = {"axis": axis, "human": HUMAN_AXES[axis], "metric": metric, "level": "sentence", "n": a.n}
            for name in ("spearman", "pearson", "roc_auc"):
                value, lo, hi = getattr(a, name)
                row.update({name: value, f"{name}_low": lo, f"{name}_high": hi})
            rows.append(row)
            s = system_agreement(values[scored], human[scored], systems[scored], n_boot=n_boot, seed=seed)
            row = {"axis": axis, "human": HUMAN_AXES[axis], "metric": metric, "level": "system", "n": s["n_systems"]}
            for name in ("spearman", "pearson", "ranking_accuracy"):
                value, lo, hi = s[name]
                row.update({name: value, f"{name}_low": lo, f"{name}_high": hi})
            rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table["_key"] = np.where(table["level"] == "sentence", table.get("roc_auc"), table.get("spearman"))
    order = {a: i for i, a in enumerate(HUMAN_AXES)}
    table["_axis"] = table["axis"].map(order)
    table = table.sort_values(["_axis", "level", "_key"], ascending=[True, True, False], na_position="last")
    return table.drop(columns=["_key", "_axis"]).reset_index(drop=True)


def _keep(table: pd.DataFrame, path: Path) -> None:
    """Write ``table`` to the cache file ``path`` atomically (a process's own temporary
    file, then a rename); a read-only data folder keeps it in memory only."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        table.to_pickle(tmp)
        os.replace(tmp, path)
    except OSError:
        pass


#: Part of the key of kept :func:`meta_eval` tables: raise it when the statistics change.
META_EVAL_VERSION = 1


def kept_meta_eval(frame: pd.DataFrame, n_boot: int = 1000, seed: int = 0,
                   cache_dir: Path | None = None) -> pd.DataFrame:
    """:func:`meta_eval`, kept on disk under ``data/cache/``: the bootstrap over thousands of
    judged pairs takes seconds, so its table is keyed by everything it reads (the systems,
    the human labels and the metric columns, ``n_boot``, ``seed``) and a restarted server,
    or another one on the same data folder, reads it instead of resampling again."""
    columns = ["participant_name", *[c for c in HUMAN_AXES.values() if c in frame],
               *sorted({m for metrics in available_metrics(frame).values() for m in metrics})]
    digest = hashlib.sha1(json.dumps([META_EVAL_VERSION, n_boot, seed, columns]).encode("utf-8"))
    digest.update(pd.util.hash_pandas_object(frame[columns], index=False).to_numpy().tobytes())
    path = (cache_dir or config.data_dir() / "cache") / f"meta-eval-{digest.hexdigest()[:20]}.pkl"
    if path.is_file():
        try:
            return pd.read_pickle(path)
        except Exception:  # noqa: BLE001 - a damaged cache file is computed again and replaced
            pass
    table = meta_eval(frame, n_boot=n_boot, seed=seed)
    _keep(table, path)
    return table


def disagreements(frame: pd.DataFrame, axis: str, metric: str, threshold: float) -> dict[str, pd.DataFrame]:
    """Rows where the human says yes and the metric says no (below threshold), and the reverse."""
    human = frame[HUMAN_AXES[axis]] >= 0.5
    auto = frame[metric] >= threshold
    return {"human yes, metric no": frame[human & ~auto], "human no, metric yes": frame[~human & auto]}


def confusion(frame: pd.DataFrame, axis: str, metric: str, threshold: float) -> pd.DataFrame:
    """2x2 counts: human label (rows) by metric >= threshold (columns)."""
    human = np.where(frame[HUMAN_AXES[axis]] >= 0.5, "human: yes", "human: no")
    auto = np.where(frame[metric] >= threshold, "metric: yes", "metric: no")
    return pd.crosstab(pd.Series(human, name="human"), pd.Series(auto, name="metric")).reindex(
        index=["human: yes", "human: no"], columns=["metric: yes", "metric: no"], fill_value=0)


def per_system_auc(frame: pd.DataFrame, metric: str, human: str, n_boot: int = 200) -> pd.DataFrame:
    """A metric's sentence-level agreement with a human label within each judged system
    (which systems' outputs it judges worst): ROC-AUC of column ``metric`` against the binary
    human column ``human`` within each ``participant_name``, with its 95% bootstrap interval:
    columns ``system``, ``auc``, ``lo``, ``hi``, the worst system first."""
    rows = []
    for system, g in frame.groupby("participant_name"):
        a = agreement(g[metric].to_numpy(float), g[human].to_numpy(float), n_boot=n_boot)
        rows.append({"system": system, "auc": a.roc_auc[0], "lo": a.roc_auc[1], "hi": a.roc_auc[2]})
    return pd.DataFrame(rows).sort_values("auc")


#: The row of :func:`per_language_agreement` that pools every language.
ALL_LANGUAGES = "all"


def _kendall(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b (ties in either side accounted for); NaN when one side is constant."""

    if x.size < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    return float(kendalltau(x, y).statistic)


def per_language_agreement(frame: pd.DataFrame, axis: str, metric: str, n_boot: int = 200,
                           seed: int = 0) -> pd.DataFrame:
    """One judgement axis against one metric, language by language, and over all of them.

    One row per language (in order of appearance; ``all`` last when there are several):
    ``lang``, ``n`` (sentences where both are given), sentence-level ``spearman`` (with a
    95% bootstrap interval ``spearman_low``/``spearman_high``), ``kendall`` (tau-b),
    ``pearson``, ``roc_auc`` (judgement >= 0.5 is yes), and at system level, over the
    per-system means within the language: ``systems``, ``system_spearman``,
    ``system_kendall`` and ``ranking_accuracy`` (share of system pairs in the same
    order). A language where the metric has no score has ``n`` 0 and NaN figures.
    """
    human_col = HUMAN_AXES[axis]
    groups: list[tuple[str, pd.DataFrame]] = []
    if "lang" in frame:
        groups = [(str(lang), g) for lang, g in frame.groupby("lang", sort=False)]
    if len(groups) != 1:
        groups.append((ALL_LANGUAGES, frame))
    rows = []
    for lang, g in groups:
        x, y = g[metric].to_numpy(float), g[human_col].to_numpy(float)
        keep = ~(np.isnan(x) | np.isnan(y))
        row: dict = {"lang": lang, "n": int(keep.sum())}
        if keep.sum() >= 2:
            a = agreement(x[keep], y[keep], n_boot=n_boot, seed=seed)
            row.update(spearman=a.spearman[0], spearman_low=a.spearman[1], spearman_high=a.spearman[2],
                       kendall=_kendall(x[keep], y[keep]), pearson=a.pearson[0], roc_auc=a.roc_auc[0])
            systems = g["participant_name"].to_numpy()[keep]
            means = pd.DataFrame({"m": x[keep], "h": y[keep], "s": systems}).groupby("s")[["m", "h"]].mean()
            s = system_agreement(x[keep], y[keep], systems, n_boot=0)
            row.update(systems=len(means), system_spearman=s["spearman"][0],
                       system_kendall=_kendall(means["m"].to_numpy(), means["h"].to_numpy()),
                       ranking_accuracy=s["ranking_accuracy"][0])
        rows.append(row)
    columns = ["lang", "n", "spearman", "spearman_low", "spearman_high", "kendall", "pearson", "roc_auc", "systems",
               "system_spearman", "system_kendall", "ranking_accuracy"]
    return pd.DataFrame(rows).reindex(columns=columns)
