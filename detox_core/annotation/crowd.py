"""Results exported from a crowdsourcing platform: one TSV per task.

Columns: ``INPUT:<field>`` (the item), ``OUTPUT:<answer>`` (the worker's answer),
``GOLDEN:<answer>`` (filled on control items), ``ASSIGNMENT:worker_id``,
``ASSIGNMENT:started``, ``ASSIGNMENT:submitted`` and ``ASSIGNMENT:status``. Rows with an
empty input are skipped and counted; rejected assignments are skipped and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from detox_core.annotation.aggregation import DEFAULT_AGGREGATOR, filter_workers, make_aggregator
from detox_core.annotation.tasks import TASKS
from detox_core.data import Source, parse_table, read_text
from detox_core.errors import DetoxInputError

_YES = {"1", "true", "yes", "y", "toxic", "same", "ok"}
_NO = {"0", "false", "no", "n", "neutral", "non-toxic", "different"}
_FLUENCY = {"1": 1.0, "1.0": 1.0, "fluent": 1.0, "0.5": 0.5, "partially": 0.5, "partially fluent": 0.5,
            "partly": 0.5, "0": 0.0, "0.0": 0.0, "not": 0.0, "not fluent": 0.0, "no": 0.0}  # partly/no: MERA's export


def normalise_label(value: str, task: str) -> float | None:
    """A worker's answer as a number: yes/no -> 1/0; fluency -> 1 / 0.5 / 0; '' -> None."""
    v = value.strip().lower()
    if not v:
        return None
    if task == "fluency":
        if v in _FLUENCY:
            return _FLUENCY[v]
    elif v in _YES:
        return 1.0
    elif v in _NO:
        return 0.0
    raise ValueError(v)


@dataclass
class CrowdResults:
    """Parsed answers plus what was skipped."""

    answers: pd.DataFrame  # worker, task, label, golden, seconds + the INPUT fields
    inputs: pd.DataFrame  # task -> INPUT fields
    skipped_empty: int
    skipped_rejected: int


def load_crowd_tsv(source: Source, task: str, *, name: str | None = None,
                   key_fields: Sequence[str] | None = None) -> CrowdResults:
    """Read a crowd-platform export (see the module docstring) for ``task``.

    ``key_fields``: the ``INPUT:`` fields that identify an item (e.g. ``neutral_comment``),
    when the export has others that vary between rows of one item (an index, a counter);
    default: every ``INPUT:`` field.

    Raises:
        DetoxInputError: missing columns, or an answer that is not a label of ``task``
            (with its line and column).
    """
    if task not in TASKS:
        raise DetoxInputError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    text, label = read_text(source, name)
    table = parse_table(text, label, "\t")
    inputs = [c for c in table.header if c.startswith("INPUT:")]
    outputs = [c for c in table.header if c.startswith("OUTPUT:")]
    if not inputs or len(outputs) != 1 or "ASSIGNMENT:worker_id" not in table.header:
        raise DetoxInputError(
            "expected INPUT:<field> columns, exactly one OUTPUT:<answer> column and ASSIGNMENT:worker_id; "
            f"the header has {', '.join(table.header)}", label, 1)
    if key_fields is not None:
        missing = [f for f in key_fields if f"INPUT:{f}" not in inputs]
        if missing:
            raise DetoxInputError(f"expected the column(s) {', '.join('INPUT:' + f for f in missing)}; the header has "
                                  f"{', '.join(table.header)}", label, 1)
        inputs = [f"INPUT:{f}" for f in key_fields]
    out_col = outputs[0]
    golden_col = "GOLDEN:" + out_col.split(":", 1)[1]
    col = {c: i for i, c in enumerate(table.header)}
    rows, empty, rejected = [], 0, 0
    for rec, line in zip(table.rows, table.lines):
        fields = tuple(rec[col[c]].strip() for c in inputs)
        if not any(fields):
            empty += 1
            continue
        status = rec[col["ASSIGNMENT:status"]].strip().upper() if "ASSIGNMENT:status" in col else ""
        if status == "REJECTED":
            rejected += 1
            continue
        for column in (out_col, golden_col):
            if column not in col:
                continue
            try:
                parsed = normalise_label(rec[col[column]], task)
            except ValueError as err:
                raise DetoxInputError(f"{err.args[0]!r} is not an answer of the {task} task", label, line,
                                      column) from None
            if column == out_col:
                value = parsed
            else:
                golden = parsed
        if golden_col not in col:
            golden = None
        if value is None:
            continue
        if not rec[col["ASSIGNMENT:worker_id"]].strip():
            raise DetoxInputError("the worker id is empty: every answer needs its worker", label, line,
                                  "ASSIGNMENT:worker_id")
        timed = "ASSIGNMENT:started" in col and "ASSIGNMENT:submitted" in col
        rows.append({"worker": rec[col["ASSIGNMENT:worker_id"]].strip(), "task": "\t".join(fields), "label": value,
                     "golden": golden, "_start": rec[col["ASSIGNMENT:started"]] if timed else "",
                     "_end": rec[col["ASSIGNMENT:submitted"]] if timed else "", "_assignment": (rec[col["ASSIGNMENT:worker_id"]],
                                                                           rec[col.get("ASSIGNMENT:started", 0)]),
                     **dict(zip(inputs, fields))})
    answers = pd.DataFrame(rows)
    if answers.empty:
        raise DetoxInputError("no answers left after skipping empty and rejected rows", label)
    # Parsed as whole columns (one call per row took 20 s on a 6,000-row export).
    start = pd.to_datetime(answers.pop("_start"), errors="coerce", format="mixed")
    end = pd.to_datetime(answers.pop("_end"), errors="coerce", format="mixed")
    answers.insert(4, "seconds", (end - start).dt.total_seconds().astype(float))
    # An assignment's time is shared by the items on its page.
    per_page = answers.groupby("_assignment")["task"].transform("size")
    answers["seconds"] = answers["seconds"] / per_page
    answers = answers.drop(columns="_assignment")
    item_inputs = answers.drop_duplicates("task").set_index("task")[inputs]
    return CrowdResults(answers, item_inputs, empty, rejected)


def aggregate_crowd(results: CrowdResults, method: str = DEFAULT_AGGREGATOR, min_control_accuracy: float = 0.5,
                    min_votes: int = 3) -> pd.DataFrame:
    """One row per real (non-control) item: its input fields, label, confidence, votes."""
    kept = filter_workers(results.answers, min_control_accuracy)
    if kept.empty:
        raise DetoxInputError("no answers left after removing control items and low-accuracy workers")
    try:
        agg = make_aggregator(method, min_votes).fit(kept)
    except ValueError as err:
        raise DetoxInputError(str(err)) from None
    tasks = kept["task"].unique()
    out = results.inputs.loc[tasks].copy()
    out["label"] = agg.labels_.reindex(tasks).to_numpy()
    out["confidence"] = agg.confidence_.reindex(tasks).to_numpy()
    out["votes"] = agg.votes_.reindex(tasks).fillna(0).astype(int).to_numpy()
    return out.reset_index(drop=True)
