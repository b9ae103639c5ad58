"""LLM-as-a-judge labels (the files an edition ships) as judgements: the same columns as human
judgements, so that a judge can be put against any metric, or against another judge.

Data contract (the files of ``textdetox/eval-of-detox-eval``):
    judge TSV: ``content_score`` (0/1: same meaning), ``toxic_pairwise_score`` (1: the
        output is less toxic than the input, 0.5: as toxic, 0: more toxic), optional
        ``toxic_fluency`` / ``neutral_fluency`` (0 / 0.5 / 1 for input / output) and
        ``fluency_score`` (0/1: the output at least as fluent). The pair is named either
        by its own ``toxic_sentence``, ``neutral_sentence`` and ``participant_name``
        columns, or by an ``id`` joined to a pairs file (``id``, ``system``, ``lang``,
        ``toxic_sentence``, ``neutral_sentence``). An empty cell is a judge that gave no
        parsable answer: NaN, never a zero.

The result has the human-judgement columns (``toxic_sentence``, ``neutral_sentence``,
``participant_name``, ``non-toxicity``, ``content``, ``fluency``, ``J``), plus ``judge``,
``lang`` when known, ``id`` when given, and ``line``.

Human judgements of the multilingual editions come in the same columns (the judges were
taught to answer like the annotators): the table ``test_all_metrics-textdetoxeval`` that
``textdetox/eval-of-detox-eval`` reads (``vizualize/plot_textdetoxeval.ipynb``) has
``toxic_sentence``, ``neutral_sentence``, ``lang``, ``participant_name``,
``neutral_sentence_gold`` (the reference), the human ``content_score``,
``toxic_pairwise_score``, ``toxic_fluency``, ``neutral_fluency``, ``fluency_score``, and
the original metrics' scores (``CLS_OLD_GEN``, ``SIM-INPUT-GEN``, ``XCOMET-LITE`` ...).
:func:`load_hub_human_judgements` reads it (aggregated labels: any number in [0, 1]);
:func:`load_any_judgements` tells it from the RUSSE-2022 schema by its header.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core.data.formats import load_human_judgements
from detox_core.data.io import Source, Table, optional_numbers, parse_table, read_text, require_columns
from detox_core.errors import DetoxInputError
from detox_core.vocab import HUMAN_AXES, MODEL_AXES

#: Judge column -> (human column it stands for, the values it may take).
JUDGE_COLUMNS = {
    "toxic_pairwise_score": (HUMAN_AXES["sta"], (0.0, 0.5, 1.0)),
    "content_score": (HUMAN_AXES["sim"], (0.0, 1.0)),
    "fluency_score": (HUMAN_AXES["fl"], (0.0, 1.0)),
}
#: Further answers kept as they are (the 3-point fluency of input and output).
EXTRA_COLUMNS = {"toxic_fluency": (0.0, 0.5, 1.0), "neutral_fluency": (0.0, 0.5, 1.0)}


def _scores(table: Table, column: str, allowed: tuple[float, ...] | None) -> list[float]:
    if allowed is None:
        return optional_numbers(table, column, lambda x: None if 0 <= x <= 1 else "expected a number in [0, 1]")
    expected = f"expected one of {', '.join(f'{a:g}' for a in allowed)}"
    return optional_numbers(table, column, lambda x: None if x in allowed else expected)


def load_pairs(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """A meta-evaluation pairs file: ``id``, ``system``, ``lang``, ``toxic_sentence``,
    ``neutral_sentence`` (ids unique)."""
    text, label = read_text(source, name)
    table = parse_table(text, label, "\t")
    require_columns(table, ["id", "system", "toxic_sentence", "neutral_sentence"])
    frame = pd.DataFrame({c: table.column(c) for c in table.header})
    frame["line"] = table.lines
    dup = frame["id"].duplicated()
    if dup.any():
        first = frame.loc[dup.idxmax()]
        raise DetoxInputError(f"id {first['id']!r} appears twice", label, int(first["line"]), "id")
    return frame


def load_llm_judgements(source: Source, *, judge: str | None = None, pairs: pd.DataFrame | None = None,
                        name: str | None = None) -> pd.DataFrame:
    """One judge's labels in the human-judgement schema (see the module docstring).

    Args:
        source: the judge's TSV.
        judge: its name (default: the file stem).
        pairs: :func:`load_pairs` of the pairs the ``id`` column names, for a file
            without its own texts.

    Raises:
        DetoxInputError: a value a judge cannot give, a missing column, an id that is
            not among the pairs.
    """
    text, label = read_text(source, name)
    frame = _label_frame(parse_table(text, label, "\t"), label, pairs, exact=True)
    frame["judge"] = judge or Path(label).stem
    return frame


def _label_frame(table: Table, label: str, pairs: pd.DataFrame | None, exact: bool) -> pd.DataFrame:
    """The judge columns of ``table`` as judgements; ``exact``: only the values a judge
    can give, else any number in [0, 1] (aggregated human labels)."""
    require_columns(table, ["toxic_pairwise_score", "content_score"])
    own_texts = {"toxic_sentence", "neutral_sentence"} <= set(table.header)
    if own_texts:
        cols = require_columns(table, ["participant_name"], {"participant_name": ("system",)})
        frame = pd.DataFrame({"toxic_sentence": table.column("toxic_sentence"),
                              "neutral_sentence": table.column("neutral_sentence"),
                              "participant_name": table.column(cols["participant_name"])})
        for extra in ("lang", "id"):
            if extra in table.header:
                frame[extra] = table.column(extra)
    else:
        require_columns(table, ["id"])
        if pairs is None:
            raise DetoxInputError("this judge file names its pairs by id: give the pairs file too", label)
        by_id = pairs.set_index("id")
        ids = table.column("id")
        for value, line in zip(ids, table.lines):
            if value not in by_id.index:
                raise DetoxInputError(f"id {value!r} is not in the pairs file", label, line, "id")
        rows = by_id.loc[ids]
        frame = pd.DataFrame({"id": ids, "toxic_sentence": rows["toxic_sentence"].to_list(),
                              "neutral_sentence": rows["neutral_sentence"].to_list(),
                              "participant_name": rows["system"].to_list()})
        if "lang" in rows:
            frame["lang"] = rows["lang"].to_list()
    for column, (human, allowed) in JUDGE_COLUMNS.items():
        frame[human] = _scores(table, column, allowed if exact else None) if column in table.header else math.nan
    for column, allowed in EXTRA_COLUMNS.items():
        if column in table.header:
            frame[column] = _scores(table, column, allowed if exact else None)
    parts = [HUMAN_AXES[k] for k in MODEL_AXES]
    frame[HUMAN_AXES["j"]] = frame[parts].prod(axis=1, skipna=False)
    frame["line"] = table.lines
    return frame


def load_judges(folder: Path | Sequence[Path], pairs: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Judge files by judge name (the file stem), sorted: every ``*.tsv`` of a folder, or
    the files given."""
    paths = sorted(Path(folder).glob("*.tsv")) if isinstance(folder, (str, Path)) else sorted(map(Path, folder))
    return {path.stem: load_llm_judgements(path, pairs=pairs) for path in paths}


#: The reference column of the multilingual human-evaluation table.
HUB_REFERENCE = "neutral_sentence_gold"


def _name_unnamed_index(text: str) -> str:
    """A table written by pandas with its index starts with an empty header cell: name it."""
    return "row" + text if text[:1] in (",", "\t") else text


def load_hub_human_judgements(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """Human judgements of a multilingual edition (see the module docstring), CSV or TSV.

    Returns the human-judgement columns, ``lang`` when given,
    ``neutral_sentence_reference`` (from ``neutral_sentence_gold``, ``""`` when absent),
    ``toxic_fluency``/``neutral_fluency`` when given, ``line``, and every other column:
    numbers when most of its cells are (the original metrics' scores), else text. An
    empty label is a pair not judged on that axis (NaN).

    Raises:
        DetoxInputError: a missing column, an empty text, a label outside [0, 1], a cell
            that is not a number in a number column; with its line and column.
    """
    text, label = read_text(source, name)
    table = parse_table(_name_unnamed_index(text), label)
    require_columns(table, ["toxic_sentence", "neutral_sentence", "participant_name"], {"participant_name": ("system",)})
    for col in ("toxic_sentence", "neutral_sentence"):
        for value, line in zip(table.column(col), table.lines):
            if not value.strip():
                raise DetoxInputError(f"{col} is empty", label, line, col)
    frame = _label_frame(table, label, None, exact=False)
    frame["neutral_sentence_reference"] = table.column(HUB_REFERENCE) if HUB_REFERENCE in table.header else ""
    used = {"toxic_sentence", "neutral_sentence", "participant_name", "system", "lang", "id", "row", HUB_REFERENCE,
            *JUDGE_COLUMNS, *EXTRA_COLUMNS, *frame.columns}
    for col in table.header:
        if col not in used:
            frame[col] = _extra_column(table, col)
    return frame


def _extra_column(table: Table, col: str) -> list:
    """Numbers (a metric's scores, empty cells NaN) when most filled cells are numbers, else text."""
    values = table.column(col)
    filled = [v for v in values if v.strip()]
    numeric = pd.to_numeric(pd.Series(filled, dtype=object), errors="coerce")
    if not filled or numeric.notna().sum() * 2 <= len(filled):
        return values
    return optional_numbers(table, col, lambda x: None if math.isfinite(x) else "expected a finite number")


def load_any_judgements(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """Judgements in either schema, told by the header: the RUSSE-2022 one
    (``non-toxicity``, ``content``, ``fluency``, ``J``; :func:`load_human_judgements`) or the
    multilingual one (``toxic_pairwise_score``, ``content_score`` ...;
    :func:`load_hub_human_judgements`).

    Raises:
        DetoxInputError: neither schema's label columns, with the header found.
    """
    text, label = read_text(source, name)
    header = parse_table(_name_unnamed_index(text.split("\n", 1)[0]) + "\n", label).header
    if "toxic_pairwise_score" in header and "non-toxicity" not in header:
        return load_hub_human_judgements(text.encode("utf-8"), name=label)
    if "non-toxicity" in header or "toxic_pairwise_score" not in header and "content_score" not in header:
        return load_human_judgements(text.encode("utf-8"), name=label)
    raise DetoxInputError("expected the labels 'toxic_pairwise_score', 'content_score' and 'fluency_score' "
                          "(multilingual schema) or 'non-toxicity', 'content', 'fluency' and 'J' (RUSSE-2022 "
                          f"schema); the header has {', '.join(repr(h) for h in header)}", label, 1)


def judge_columns(judge: str) -> dict[str, str]:
    """Axis -> the metric column under which :func:`add_judge_columns` puts a judge's labels."""
    return {axis: f"{judge} (LLM):{axis}" for axis in HUMAN_AXES}


#: How a judge was prompted, at the end of its name ("gpt-4.1-mini_fewshot"): the same model.
_PROMPTING = re.compile(r"[_\- ]*(few|zero|one)[_\- ]?shot$", re.IGNORECASE)
_JUDGE_COLUMN = " (LLM):"


def column_judge(column: str) -> str | None:
    """The judge whose labels a metric column holds (``"gpt-4.1-nano (LLM):sta"`` ->
    ``"gpt-4.1-nano"``, see :func:`judge_columns`), or None for any other metric."""
    judge, sep, axis = column.rpartition(_JUDGE_COLUMN)
    return judge if sep and axis in HUMAN_AXES else None


def judge_model(judge: str) -> str:
    """The model behind a judge's name, how it was prompted left out: ``"gpt-4.1-mini_fewshot"``
    and ``"gpt-4.1-mini"`` are one judge (``"gpt-4.1-mini"``), ``"gpt-4.1-nano"`` another."""
    return _PROMPTING.sub("", judge.strip()).lower()


def same_judge(a: str, b: str) -> bool:
    """Whether two judges' names are the same model (prompted the same way or not)."""
    return judge_model(a) == judge_model(b)


def default_metric(metrics: Sequence[str], judge: str | None = None) -> int:
    """The position in ``metrics`` of the metric a page first puts against judgements, so
    that the two sides never come from the same judge by default.

    People's judgements (``judge`` None) get the first metric. A judge's labels get the
    first metric that is not an LLM judge, else the first judge of another model (not the
    same one prompted otherwise); 0 when every metric is that judge's own.
    """
    if judge is None:
        return 0
    others = [k for k, m in enumerate(metrics) if not same_judge(column_judge(m) or "", judge)]
    plain = [k for k in others if column_judge(metrics[k]) is None]
    return (plain or others or [0])[0]


def _pair_keys(frame: pd.DataFrame, by_id: bool) -> pd.Series:
    if by_id:
        return frame["id"].astype(str)
    return (frame["participant_name"].astype(str) + "\t" + frame["toxic_sentence"].astype(str).str.strip() + "\t"
            + frame["neutral_sentence"].astype(str).str.strip())


def add_judge_columns(frame: pd.DataFrame, judges: dict[str, pd.DataFrame], skip: Sequence[str] = ()) -> pd.DataFrame:
    """Each judge's labels as automatic metrics beside ``frame``'s judgements: columns
    ``<judge> (LLM):sta`` ... (see :func:`judge_columns`), matched by ``id`` when both
    have one, else by system, input and output; NaN where the judge has no answer."""
    out = frame.copy()
    for name, judged in judges.items():
        if name in skip:
            continue
        by_id = "id" in out and "id" in judged
        labels = judged.set_index(_pair_keys(judged, by_id).to_numpy())
        labels = labels[~labels.index.duplicated()]
        keys = _pair_keys(out, by_id)
        for axis, col in judge_columns(name).items():
            out[col] = keys.map(labels[HUMAN_AXES[axis]].astype(float)).to_numpy(float)
    return out


def judge_missing(frame: pd.DataFrame, judges: Sequence[str]) -> dict[str, dict[str, int]]:
    """Judge -> axis -> rows of ``frame`` (after :func:`add_judge_columns`) without that
    judge's label: a pair it did not judge or an answer it could not give (NaN, not 0)."""
    return {name: {axis: int(frame[col].isna().sum()) for axis, col in judge_columns(name).items() if col in frame}
            for name in judges}


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's kappa of two raters' labels (the same values on both sides): observed
    agreement corrected for chance, (p_o - p_e) / (1 - p_e); NaN when chance agreement is 1."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.size == 0:
        return float("nan")
    p_o = float(np.mean(a == b))
    values = np.union1d(a, b)
    p_e = float(sum(np.mean(a == v) * np.mean(b == v) for v in values))
    return float("nan") if p_e >= 1 else (p_o - p_e) / (1 - p_e)


def judge_agreement_by_language(judges: dict[str, pd.DataFrame], column: str) -> pd.DataFrame:
    """Every pair of judges on one label ``column``, language by language and over all:
    ``lang`` (``all`` last), ``judge_a``, ``judge_b``, ``n`` (pairs both answered),
    ``agreement`` (share of equal labels) and ``kappa`` (:func:`cohen_kappa`)."""
    names = list(judges)
    keyed = {}
    for name, frame in judges.items():
        by_id = "id" in frame
        keyed[name] = pd.DataFrame({"value": frame[column].to_numpy(float),
                                    "lang": frame["lang"].to_numpy() if "lang" in frame else "",
                                    }, index=_pair_keys(frame, by_id).to_numpy())
        keyed[name] = keyed[name][~keyed[name].index.duplicated()]
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            x, y = keyed[a].align(keyed[b], join="inner")
            both = x["value"].notna() & y["value"].notna()
            langs = list(dict.fromkeys(x.loc[both, "lang"].tolist()))
            for lang in [*(langs if len(langs) > 1 else []), "all"]:
                sel = both & ((x["lang"] == lang) if lang != "all" else True)
                xa, ya = x.loc[sel, "value"].to_numpy(), y.loc[sel, "value"].to_numpy()
                rows.append({"lang": lang, "judge_a": a, "judge_b": b, "n": int(sel.sum()),
                             "agreement": float(np.mean(xa == ya)) if len(xa) else np.nan,
                             "kappa": cohen_kappa(xa, ya)})
    return pd.DataFrame(rows, columns=["lang", "judge_a", "judge_b", "n", "agreement", "kappa"])


def judge_agreement_table(judges: dict[str, pd.DataFrame], column: str) -> pd.DataFrame:
    """Share of pairs on which two judges give the same ``column`` label, over the pairs
    both answered (matched by ``id``, else by system, input and output); judge x judge,
    the diagonal 1."""
    def keyed(frame: pd.DataFrame) -> pd.Series:
        key = frame["id"] if "id" in frame else (frame["participant_name"] + "\t" + frame["toxic_sentence"] + "\t"
                                                 + frame["neutral_sentence"])
        return pd.Series(frame[column].to_numpy(float), index=key.to_numpy()).groupby(level=0).first()

    series = {name: keyed(frame) for name, frame in judges.items()}
    names = list(judges)
    out = pd.DataFrame(np.nan, index=names, columns=names)
    for a in names:
        for b in names:
            x, y = series[a].align(series[b], join="inner")
            both = x.notna() & y.notna()
            out.loc[a, b] = float((x[both] == y[both]).mean()) if both.any() else np.nan
    return out
