"""Scoring submission files: validation first, then one model pool for all of them.

``python -m detox_core score`` is a thin wrapper over :func:`score_submissions`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from detox_core import data
from detox_core.errors import DetoxInputError
from detox_core.metrics.base import RAW_COLUMNS, SCORE_COLUMNS, Signature, system_scores
from detox_core.metrics.registry import get_preset
from detox_core.models import ModelPool


def load_inputs(path: Path, references: Path | None = None) -> tuple[list[str], list[list[str]]]:
    """Toxic inputs and their references.

    ``path`` is a corpus TSV (header with ``toxic_comment``; its ``neutral_comment*``
    columns are the references) or a text file with one input per line. ``references``
    is an optional corpus TSV whose paraphrases are the references, row for row.
    """
    text, _ = data.read_text(path)
    first = text.split("\n", 1)[0]
    if "toxic_comment" in first.split("\t"):
        corpus = data.load_corpus(path)
        inputs = corpus["toxic_comment"].tolist()
        refs = data.references(corpus)
    else:
        lines = data.load_submission(path)
        inputs = lines["neutral_sentence"].tolist()
        refs = [[] for _ in inputs]
    if references is not None:
        ref_corpus = data.load_corpus(references)
        if len(ref_corpus) != len(inputs):
            raise DetoxInputError(f"expected {len(inputs)} rows of references (one per input), found {len(ref_corpus)}", references)
        refs = data.references(ref_corpus)
    return inputs, refs


def score_submissions(
    inputs_path: Path,
    submissions: Sequence[Path],
    out_dir: Path,
    *,
    preset: str = "embedded",
    calibrated: bool = True,
    models: dict[str, str] | None = None,
    pool: ModelPool | None = None,
    references: Path | None = None,
    quiet: bool = False,
    options: dict | None = None,
) -> list[Path]:
    """Score every submission and write ``<name>.scores.csv``, ``<name>.signature.json``
    and ``summary.csv`` into ``out_dir``.

    Every file is validated before anything is scored, and files are written only
    after all submissions are scored (each through a temporary file), so a failure
    leaves no half-written output.

    Raises:
        DetoxInputError: a bad inputs or submission file (all submissions are checked
            and their problems reported together).
        ModelUnavailableError: a model of the preset cannot be loaded.
    """
    from tqdm import tqdm

    inputs, refs = load_inputs(inputs_path, references)
    loaded: dict[str, pd.DataFrame] = {}
    problems: list[str] = []
    names = [p.name.removesuffix(".txt").removesuffix(".tsv") for p in submissions]
    if len(set(names)) != len(names):
        raise DetoxInputError("two submissions have the same file name; their score files would collide")
    for path, name in zip(submissions, names):
        try:
            loaded[name] = data.load_submission(path, inputs=inputs)
        except DetoxInputError as err:
            problems.append(str(err))
    if problems:
        raise DetoxInputError("; ".join(problems))
    scorer = get_preset(preset, pool=pool, models=models, **(options or {}))
    results: dict[str, pd.DataFrame] = {}
    signature: Signature | None = None
    for name in names:
        outputs = loaded[name]["neutral_sentence"].tolist()
        if hasattr(scorer, "estimate") and not quiet:
            estimate = scorer.estimate(inputs, outputs)
            if estimate is not None:
                print(f"{name}: {estimate.text()}", file=sys.stderr)
        bar = tqdm(total=len(outputs), desc=name, unit="pair" if not hasattr(scorer, "estimate") else "request",
                   file=sys.stderr, disable=quiet, leave=False)
        last = {"step": None}

        def progress(step: str, done: int, total: int, bar=bar, last=last) -> None:
            if step != last["step"]:
                bar.set_postfix_str(step)
                last["step"] = step
            bar.total = max(total, 1)  # an LLM judge counts requests, not pairs
            bar.n = done
            bar.refresh()

        frame = scorer.score(inputs, outputs, refs, calibrated=calibrated, progress=progress)
        bar.close()
        if "llm_usage" in frame.attrs and not quiet:
            from detox_core.judge.runner import Usage

            print(f"{name}: {Usage(**frame.attrs['llm_usage']).text()}", file=sys.stderr)
        signature = frame.attrs["signature"]
        table = pd.DataFrame({
            "input": inputs,
            "output": outputs,
            **{f"reference{k + 1}": [r[k] if k < len(r) else "" for r in refs] for k in range(max(map(len, refs), default=0))},
        })
        results[name] = pd.concat([table, frame[list(SCORE_COLUMNS) + list(RAW_COLUMNS)]], axis=1)
        results[name].attrs["signature"] = signature
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    rows = []
    for name, table in results.items():
        sig = table.attrs["signature"]
        path = out_dir / f"{name}.scores.csv"
        data.write_text_atomic(path, table.to_csv(index=False, float_format="%.6f"))
        sig_path = out_dir / f"{name}.signature.json"
        data.write_text_atomic(sig_path, json.dumps(sig, ensure_ascii=False, indent=2) + "\n")
        written += [path, sig_path]
        rows.append({"submission": name, "n": len(table), **system_scores(table), "signature": json.dumps(sig, ensure_ascii=False, sort_keys=True)})
    summary = out_dir / "summary.csv"
    data.write_text_atomic(summary, pd.DataFrame(rows).to_csv(index=False, float_format="%.6f"))
    written.append(summary)
    return written
