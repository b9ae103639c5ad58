"""Filtering a table of (toxic input, neutral rewrite) pairs by three crowd projects, as
the MERA ruDetox aggregation notebook does (MERA-Evaluation/MERA,
``humanbenchmarks/ruDetox/agg.ipynb``).

Three crowd-platform exports judge the rewrites of a table of pairs: ``toxicity`` (is
the rewrite offensive), ``fluency`` (fluent / partly / no) and ``content`` (does it
mean the same as its toxic input). For each export:

1. workers whose accuracy on the control items is under ``min_control_accuracy``
   (0.5) are left out, and the control items with them (:func:`aggregate_crowd`);
2. each item gets the majority label when at least ``min_votes`` (3) workers gave it
   (and no other label as many); otherwise it has none;
3. labels join the table by normalised text (:func:`detox_core.text.normalise_spacing`:
   the platform reflows spaces, tabs and line breaks): the rewrite, and for the content
   export the (input, rewrite) pair when it carries the input.

The result reports, per export, the items whose text matches no row of the table
(``unmatched``) and checks sizes: an export none of whose items matches the table, or
two items that become one text with different labels, is refused with the file named.
The pairs judged non-toxic, same meaning and fluent are kept.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from detox_core.annotation.aggregation import control_accuracy
from detox_core.annotation.crowd import aggregate_crowd, load_crowd_tsv
from detox_core.data import Source, read_text
from detox_core.errors import DetoxInputError
from detox_core.text import normalise_spacing

#: The exports' fields as the MERA / RUSSE-2022 crowd projects name them.
OUTPUT_FIELD = "neutral_comment"
INPUT_FIELD = "toxic_comment"
#: The label each task must give for a pair to be kept: non-toxic, same meaning, fluent.
KEEP = {"toxicity": 0.0, "content": 1.0, "fluency": 1.0}
#: (input, output) column names of a pairs table, in the order they are looked for.
PAIR_COLUMNS = (("inputs", "outputs"), ("toxic_comment", "neutral_comment"), ("toxic_sentence", "neutral_sentence"),
                ("input", "output"), ("toxic_comment", "neutral_comment1"))


def read_pairs_table(source: Source, name: str | None = None) -> pd.DataFrame:
    """A CSV/TSV table of pairs as ``input`` / ``output`` columns (MERA's ``dataset.csv``
    has ``inputs`` / ``outputs``; see :data:`PAIR_COLUMNS`).

    Raises:
        DetoxInputError: no known pair of columns, or no rows, with the file named.
    """
    text, label = read_text(source, name)
    first = text.split("\n", 1)[0]
    sep = "\t" if "\t" in first else ","
    try:
        # pandas, not the strict parser: MERA's table quotes multi-line prompts full of commas.
        table = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, ValueError) as err:
        raise DetoxInputError(f"not a CSV/TSV table: {err}", label) from None
    for a, b in PAIR_COLUMNS:
        if a in table.columns and b in table.columns:
            if table.empty:
                raise DetoxInputError("the table has no rows", label)
            return pd.DataFrame({"input": table[a].to_numpy(), "output": table[b].to_numpy()})
    raise DetoxInputError("expected input and output columns: "
                          + " or ".join(f"{a}/{b}" for a, b in PAIR_COLUMNS) + f"; the header has "
                          f"{', '.join(map(str, table.columns))}", label, 1)


@dataclass
class ExportReport:
    """What one export contributed."""

    task: str
    file: str
    answers: int
    workers: int
    workers_left_out: int  # under the control accuracy
    items: int  # real (non-control) items
    labelled: int  # items with a majority of at least min_votes
    matched: int  # labelled items whose text is a row of the table
    unmatched: list[str] = field(default_factory=list)  # labelled items matching no row


@dataclass
class CrowdFilterResult:
    """The table with one label column per task (NaN: no majority or no item), the kept
    pairs and a report per export."""

    table: pd.DataFrame
    kept: pd.DataFrame
    reports: dict[str, ExportReport]

    def summary(self) -> str:
        lines = []
        for r in self.reports.values():
            lines.append(f"{r.task} ({r.file}): {r.answers:,} answers of {r.workers:,} workers, {r.workers_left_out:,} "
                         f"left out under the control accuracy; {r.items:,} items, {r.labelled:,} with a majority, "
                         f"{r.matched:,} matched to the table, {len(r.unmatched):,} unmatched")
        lines.append(f"{len(self.table):,} pairs in the table, {int(self.table[list(self.reports)].notna().all(axis=1).sum()):,} "
                     f"labelled by every export, {len(self.kept):,} kept (non-toxic, same meaning, fluent)")
        return "\n".join(lines)


def _label_export(source: Source, task: str, name: str | None, min_control_accuracy: float,
                  min_votes: int) -> tuple[pd.DataFrame, ExportReport, bool]:
    """Majority labels of one export keyed by normalised text; whether the key holds the input."""
    text, label = read_text(source, name)
    header = text.split("\n", 1)[0].rstrip("\r").split("\t")
    with_input = task == "content" and f"INPUT:{INPUT_FIELD}" in header
    keys = [INPUT_FIELD, OUTPUT_FIELD] if with_input else [OUTPUT_FIELD]
    parsed = load_crowd_tsv(text.encode("utf-8"), task, name=label, key_fields=keys)
    answers = parsed.answers
    acc = control_accuracy(answers)
    agg = aggregate_crowd(parsed, "mv", min_control_accuracy, min_votes)
    labelled = agg[agg["label"].notna()].copy()
    labelled["key"] = [tuple(normalise_spacing(str(labelled[f"INPUT:{k}"].iloc[i])) for k in keys)
                       for i in range(len(labelled))]
    clash = labelled.groupby("key")["label"].nunique()
    if (clash > 1).any():
        text_ = " / ".join(clash[clash > 1].index[0])
        raise DetoxInputError(f"two items of the {task} export become the same text {text_!r} once spaces are "
                              "normalised, with different majority labels: the join would be ambiguous", label)
    labelled = labelled.drop_duplicates("key")
    report = ExportReport(task, label, len(answers), answers["worker"].nunique(), int((acc < min_control_accuracy).sum()),
                          len(agg), len(labelled), 0)
    return labelled, report, with_input


def crowd_filter(pairs: pd.DataFrame, exports: dict[str, tuple[Source, str | None]], *,
                 min_control_accuracy: float = 0.5, min_votes: int = 3) -> CrowdFilterResult:
    """Label ``pairs`` (``input``, ``output`` columns) from the three exports and keep the
    pairs judged non-toxic, same meaning and fluent (see the module docstring).

    Args:
        pairs: the original table (:func:`read_pairs_table`).
        exports: task (``toxicity``, ``content``, ``fluency``) -> (file or bytes, name).

    Raises:
        DetoxInputError: a task missing or unknown, a bad export, an export matching no
            row of the table or an ambiguous join, naming the file.
    """
    if set(exports) != set(KEEP):
        raise DetoxInputError(f"expected the three exports {', '.join(KEEP)}; given: {', '.join(exports) or 'none'}")
    out = pairs[["input", "output"]].reset_index(drop=True).copy()
    norm_out = [normalise_spacing(str(t)) for t in out["output"]]
    norm_in = [normalise_spacing(str(t)) for t in out["input"]]
    reports: dict[str, ExportReport] = {}
    for task in KEEP:
        source, name = exports[task]
        labelled, report, with_input = _label_export(source, task, name, min_control_accuracy, min_votes)
        lookup = dict(zip(labelled["key"], labelled["label"]))
        row_keys = [(i, o) if with_input else (o,) for i, o in zip(norm_in, norm_out)]
        out[task] = [lookup.get(k, np.nan) for k in row_keys]
        present = set(row_keys)
        report.unmatched = [" / ".join(k) for k in labelled["key"] if k not in present]
        report.matched = report.labelled - len(report.unmatched)
        if len(out) != len(pairs):  # the join may never add or drop rows
            raise DetoxInputError(f"the join changed the table's size ({len(pairs)} -> {len(out)})", report.file)
        if report.labelled and report.matched == 0:
            raise DetoxInputError(f"none of the {report.labelled:,} labelled items of the {task} export matches a row of "
                                  f"the table (by its {'input and ' if with_input else ''}rewrite): another table's export?",
                                  report.file)
        reports[task] = report
    keep = np.ones(len(out), dtype=bool)
    for task, wanted in KEEP.items():
        keep &= (out[task] == wanted).to_numpy()
    return CrowdFilterResult(out, out[keep].reset_index(drop=True), reports)
