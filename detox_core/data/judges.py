"""LLM-as-a-judge labels as judgements: the same columns as human judgements, so that a
judge can be put against any metric, or against another judge.

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
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

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


def _scores(table: Table, column: str, allowed: tuple[float, ...]) -> list[float]:
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
    table = parse_table(text, label, "\t")
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
        frame[human] = _scores(table, column, allowed) if column in table.header else math.nan
    for column, allowed in EXTRA_COLUMNS.items():
        if column in table.header:
            frame[column] = _scores(table, column, allowed)
    parts = [HUMAN_AXES[k] for k in MODEL_AXES]
    frame[HUMAN_AXES["j"]] = frame[parts].prod(axis=1, skipna=False)
    frame["judge"] = judge or Path(label).stem
    frame["line"] = table.lines
    return frame


def load_judges(folder: Path, pairs: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Every ``*.tsv`` judge file of ``folder``, by judge name (the file stem), sorted."""
    return {path.stem: load_llm_judgements(path, pairs=pairs) for path in sorted(Path(folder).glob("*.tsv"))}


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
