"""Scoring submission files from the shell: validation first, then one model pool (and its
per-text memo) for all of them.

``python -m detox_core score`` is a thin wrapper over :func:`score_submissions`, which
tells its progress through a :class:`Reporter` (the command's prints to stderr and
progress bars; nothing by default). Two kinds
of task:

* RUSSE-style: inputs are a corpus TSV (``toxic_comment``, references in
  ``neutral_comment*``) or one input per line; a submission has one output per line in
  the inputs' order (or a TSV repeating the inputs).
* TextDetox (multilingual): inputs are ``toxic_sentence, lang`` (references in
  ``neutral_sentence`` or a references file), a submission is the CodaLab TSV
  ``toxic_sentence, neutral_sentence, lang`` (or the zip holding it), matched by text and
  language by :func:`detox_core.submissions.service.prepare_multilingual`: the same
  function as the Submissions page, so a file gives the same numbers in both.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from detox_core import data
from detox_core.data.io import MAX_FILE_BYTES, read_bytes
from detox_core.data.spreadsheet import csv_text
from detox_core.errors import DetoxInputError, UsageError
from detox_core.llm.runner import Usage
from detox_core.api import check_covered
from detox_core.metrics.base import RAW_COLUMNS, SCORE_COLUMNS, signature_text
from detox_core.metrics.registry import get_preset, preset_class
from detox_core.models import ModelPool
from detox_core.stats.languages import per_language
from detox_core.stats.summary import FIGURES, Summary, mean_over_languages, summarize
from detox_core.submissions.batch_inputs import ScoringTask, load_task
from detox_core.submissions.service import prepare_multilingual, reference_map, run_scorer
from detox_core.vocab import in_language_order, language_name


class Reporter:
    """What a batch run tells whoever runs it, as it goes; this one tells nothing. The
    ``score`` command's reporter prints to stderr and draws progress bars."""

    #: Whether an LLM judge's estimate (its requests planned, the cache read) is wanted before scoring.
    wants_estimates = False

    def note(self, name: str, text: str) -> None:
        """A line about one submission: an LLM judge's estimate before, its cost after."""

    def progress(self, name: str, total: int, unit: str) -> Callable[[str, int, int], None]:
        """A submission's scoring begins; the answer is called as ``(step, done, total)``."""
        return lambda step, done, total: None

    def finished(self, name: str) -> None:
        """A submission's scoring is over (its progress is done)."""

    def languages(self, name: str, described: str, table: pd.DataFrame) -> None:
        """A multilingual submission's languages: J per language, what is n/a and why."""


@dataclass
class BatchResult:
    """What :func:`score_submissions` wrote and scored.

    Attributes:
        written: every file written, in order (score files, signatures, languages, summary).
        tables: each submission's per-sentence table (the ``<name>.scores.csv`` content), its
            signature in ``attrs["signature"]``.
        summary: one row per submission (the ``summary.csv`` content).
        languages: a multilingual submission's table per language.
        label: what was scored against, in words (an edition and its split, or a file name).
        split: the edition's split scored (None for inputs from a file).
        signatures: each submission's signature in one line (the ``summary.csv`` column).
    """

    written: list[Path]
    tables: dict[str, pd.DataFrame]
    summary: pd.DataFrame
    languages: dict[str, pd.DataFrame] = field(default_factory=dict)
    label: str = ""
    split: str | None = None
    signatures: dict[str, str] = field(default_factory=dict)


def submission_name(path: Path) -> str:
    """``team.tsv``, ``team.txt`` and ``team.zip`` are all ``team``."""
    name = path.name
    for suffix in (".zip", ".tsv", ".txt", ".csv"):
        name = name.removesuffix(suffix)
    return name


def score_submissions(
    inputs_path: Path | None,
    submissions: Sequence[Path],
    out_dir: Path | None,
    *,
    preset: str = "embedded",
    calibrated: bool = True,
    models: dict[str, str] | None = None,
    pool: ModelPool | None = None,
    references: Path | None = None,
    reporter: Reporter | None = None,
    options: dict | None = None,
    edition: str | None = None,
    split: str | None = None,
    lang: str | None = None,
    n_boot: int = 1000,
) -> BatchResult:
    """Score every submission and write ``<name>.scores.csv``, ``<name>.signature.json``
    and ``summary.csv`` into ``out_dir`` (and ``<name>.languages.csv`` for a multilingual
    task: one row per language, n/a with the reason where a language is not scored); with
    ``out_dir`` None, nothing is written (``detox score --json`` without ``--out``).

    The summary is :func:`detox_core.stats.summary.summarize`'s, as ``detox_core.score``
    gives it: each figure's mean (over languages for several, each counting once) with its
    95% interval, n/a where a language has a single pair, and the signature as one line.

    Every file is validated before anything is scored (the problems of all files are
    reported together), and files are written only after all submissions are scored
    (each through a temporary file), so a failure leaves no half-written output.

    Raises:
        DetoxInputError: a bad inputs or submission file, a language that cannot be told or
            that the preset does not cover.
        ModelUnavailableError: a model of the preset cannot be loaded.
    """
    reporter = reporter or Reporter()
    preset_class(preset)  # an unknown preset is refused before any file is read
    task = load_task(inputs_path, references, edition=edition, split=split, lang=lang)
    names = [submission_name(p) for p in submissions]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"two submissions are named {', '.join(twice)}: their score files would collide; "
                              "rename one")
    if task.multilingual:
        prepared = _validate_multilingual(task, submissions, names, preset)
    else:
        check_covered(preset, task.langs, task.inputs)
        prepared = _validate_monolingual(task, submissions, names)
    scorer = get_preset(preset, pool=pool, models=models, **(options or {}))
    results: dict[str, pd.DataFrame] = {}
    for name in names:
        if task.multilingual:
            results[name] = _score_multilingual(task, prepared[name], scorer, name, calibrated, reporter)
        else:
            outputs = prepared[name]["neutral_sentence"].tolist()
            frame = _run(scorer, name, task.inputs, outputs, task.references, task.langs, calibrated, reporter)
            refs = task.references
            table = pd.DataFrame({
                "lang": task.langs,
                "input": task.inputs,
                "output": outputs,
                **{f"reference{k + 1}": [r[k] if k < len(r) else "" for r in refs]
                   for k in range(max(map(len, refs), default=0))},
            })
            results[name] = pd.concat([table, frame[list(SCORE_COLUMNS) + list(RAW_COLUMNS)]], axis=1)
            results[name].attrs["signature"] = frame.attrs["signature"]
    files: dict[str, str] = {}
    rows = []
    by_language: dict[str, pd.DataFrame] = {}
    signatures: dict[str, str] = {}
    for name, table in results.items():
        sig = table.attrs["signature"]
        files[f"{name}.scores.csv"] = csv_text(table, float_format="%.6f")
        files[f"{name}.signature.json"] = json.dumps(sig, ensure_ascii=False, indent=2) + "\n"
        if task.multilingual:
            scored = table[table["note"] == ""]
            summary = summarize(scored, n_boot=n_boot, averages=task.averages)
            languages = language_table(task, prepared[name], table, preset, summary)
            files[f"{name}.languages.csv"] = csv_text(languages, float_format="%.6f")
            signatures[name] = signature_text(sig, lang=",".join(sorted(set(scored["lang"]))) or "none",
                                              langid="given")
            rows.append({**summary_row(task, name, prepared[name], languages, summary),
                         "signature": signatures[name]})
            by_language[name] = languages
            reporter.languages(name, prepared[name].submission.describe(), languages)
        else:
            summary = summarize(table, n_boot=n_boot)
            extra = {"lang": ",".join(sorted(set(task.langs)))}
            if task.langid:
                extra["langid"] = task.langid
            signatures[name] = signature_text(sig, **extra)
            others = {c: mean_over_languages(table, c) for c in (*SCORE_COLUMNS, *RAW_COLUMNS)
                      if c in table and c not in summary.figures}  # BLEU, ROUGE-L, BERTScore, the raw axes
            rows.append({"submission": name, **summary.row(), **others, "signature": signatures[name]})
    summary_table = pd.DataFrame(rows)
    files["summary.csv"] = csv_text(summary_table, float_format="%.6f")
    written: list[Path] = []
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        for file_name, content in files.items():
            data.write_text_atomic(out_dir / file_name, content)
            written.append(out_dir / file_name)
    return BatchResult(written, results, summary_table, by_language, task.label, task.split, signatures)


def _validate_monolingual(task: ScoringTask, submissions: Sequence[Path], names: Sequence[str]) -> dict:
    loaded: dict[str, pd.DataFrame] = {}
    problems: list[str] = []
    for path, name in zip(submissions, names):
        try:
            loaded[name] = data.load_submission(path, inputs=task.inputs)
        except DetoxInputError as err:
            problems.append(str(err))
    if problems:
        raise DetoxInputError("; ".join(problems))
    return loaded


def _validate_multilingual(task: ScoringTask, submissions: Sequence[Path], names: Sequence[str], preset: str) -> dict:
    """Every submission matched to the split (the page's matching), all problems of all
    files together, before anything is scored."""
    prepared = {}
    problems: list[str] = []
    for path, name in zip(submissions, names):
        try:
            content, _ = read_bytes(path, None, MAX_FILE_BYTES)
            prepared[name] = prepare_multilingual(content, path.name, task.rows, preset, elsewhere=task.elsewhere)
        except DetoxInputError as err:
            problems.append(str(err))
        except OSError as err:
            problems.append(f"{path}: {err.strerror or err}")
    if problems:
        raise DetoxInputError(problems[0] if len(problems) == 1 else
                              f"{len(problems)} files have problems:" + "".join(f"\n  - {p}" for p in problems))
    return prepared


def _run(scorer, name: str, inputs, outputs, references, langs, calibrated: bool, reporter: Reporter) -> pd.DataFrame:
    """One submission through the scorer, its progress told to ``reporter`` (and an LLM
    judge's estimate and cost)."""
    if hasattr(scorer, "estimate") and reporter.wants_estimates:
        estimate = scorer.estimate(inputs, outputs, None if langs is None else list(langs))
        if estimate is not None:
            reporter.note(name, estimate.text())
    progress = reporter.progress(name, len(outputs), "pair" if not hasattr(scorer, "estimate") else "request")
    try:
        frame = run_scorer(scorer, inputs, outputs, references, langs=langs, calibrated=calibrated, progress=progress)
    finally:
        reporter.finished(name)
    if "llm_usage" in frame.attrs:
        reporter.note(name, Usage(**frame.attrs["llm_usage"]).text())
    return frame


def _score_multilingual(task: ScoringTask, prepared, scorer, name: str, calibrated: bool,
                        reporter: Reporter) -> pd.DataFrame:
    """Per-sentence scores of every answered input, in the split's order: the covered
    languages scored, the others n/a with the reason in ``note``."""
    sub = prepared.submission.frame
    frame = _run(scorer, name, prepared.inputs, prepared.outputs, prepared.references, prepared.langs,
                 calibrated, reporter)
    scored = pd.concat([prepared.frame[["input_line"]].reset_index(drop=True),
                        frame[list(SCORE_COLUMNS) + list(RAW_COLUMNS)].reset_index(drop=True)], axis=1)
    refs_by_key = reference_map(task.rows)
    refs = [refs_by_key.get(k, []) for k in zip(sub["toxic_sentence"], sub["lang"])]
    table = pd.DataFrame({
        "input_line": sub["input_line"], "line": sub["line"], "lang": sub["lang"],
        "input": sub["toxic_sentence"], "output": sub["neutral_sentence"],
        **{f"reference{k + 1}": [r[k] if k < len(r) else "" for r in refs]
           for k in range(max(map(len, refs), default=0))},
    })
    table = table.merge(scored, on="input_line", how="left")
    recipe = preset_class(scorer.name)
    reason = f"not scored: the {recipe.display(calibrated)} preset covers {recipe.coverage()}"
    table["note"] = ["" if lang in prepared.covered else reason for lang in table["lang"]]
    table.attrs["signature"] = frame.attrs["signature"]
    return table


def language_table(task: ScoringTask, prepared, table: pd.DataFrame, preset: str, summary: Summary) -> pd.DataFrame:
    """One row per language of the split: ``lang``, ``language``, ``n`` (sentences answered),
    the mean of each score over the language's scored sentences with the 95% interval of the
    summarised figures (``j_low``, ``j_high``, ...; n/a under two scored pairs, ``j_interval``
    saying so), and ``note`` (why a
    language has no score: not answered, not covered by the preset, no references)."""
    recipe = preset_class(preset)
    present = [c for c in (*SCORE_COLUMNS, *RAW_COLUMNS) if c in table]
    scored = per_language(table[table["note"] == ""], tuple(present)).set_index("lang") \
        if (table["note"] == "").any() else pd.DataFrame(columns=present)
    bounds = [f"{c}_{end}" for c in FIGURES if c in present for end in ("low", "high")]
    out = []
    for lang in task.languages:
        n = int((table["lang"] == lang).sum())
        row = {"lang": lang, "language": language_name(lang), "n": n}
        if lang in scored.index:
            row.update({c: float(scored.at[lang, c]) for c in present})
            figures = summary.by_language[lang][1] if lang in summary.by_language else {}
            for c in FIGURES:
                if c in figures:
                    row.update({f"{c}_low": figures[c].low, f"{c}_high": figures[c].high})
                    if figures[c].note:
                        row[f"{c}_interval"] = figures[c].note
            part = task.rows[task.rows["lang"] == lang]
            row["note"] = "" if (part["n_refs"] > 0).any() else \
                "no references: chrF and the other reference-based metrics are n/a"
        else:
            row.update({c: float("nan") for c in present})
            row["note"] = ("not answered" if lang in prepared.submission.missing_languages
                           else f"n/a: the {recipe.display()} preset covers {recipe.coverage()}")
        out.append(row)
    notes = [f"{c}_interval" for c in FIGURES if any(f"{c}_interval" in row for row in out)]
    return pd.DataFrame(out, columns=["lang", "language", "n", *present, *bounds, *notes, "note"])


def summary_row(task: ScoringTask, name: str, prepared, languages: pd.DataFrame, summary: Summary) -> dict:
    """A submission in one row: what it answers, the mean over languages of each axis (the
    official average: each language counts once; over the languages scored, named in
    ``mean_over``) with its 95% interval (n/a, with the reason in ``<axis>_interval``, when a
    language has a single pair), the edition's named averages and J per language."""
    sub = prepared.submission
    scored = languages[languages["lang"].isin(prepared.covered)]
    row: dict = {"submission": name, "answered": sub.describe(), "partial": sub.partial,
                 "missing_languages": " ".join(in_language_order(sub.missing_languages)),
                 "not_covered": " ".join(prepared.not_covered), "n": int(languages["n"].sum()),
                 "n_scored": int(scored["n"].sum())}
    with_j = scored.loc[scored["j"].notna(), "lang"].tolist()
    row["mean_over"] = f"all {len(task.languages)}" if len(with_j) == len(task.languages) else " ".join(with_j) or "none"
    for c in [c for c in (*SCORE_COLUMNS, *RAW_COLUMNS) if c in languages]:
        values = scored[c].dropna()
        row[c] = float(values.mean()) if len(values) else float("nan")
        if c in summary.figures:
            fig = summary.figures[c]
            row.update({f"{c}_low": fig.low, f"{c}_high": fig.high})
            if fig.note:
                row[f"{c}_interval"] = fig.note
    for avg, value in summary.averages.items():
        row[f"j_{avg}"] = value  # an edition's average only when every one of its languages is scored
    for lang, value in zip(languages["lang"], languages["j"]):
        row[f"j_{lang}"] = value
    return row
