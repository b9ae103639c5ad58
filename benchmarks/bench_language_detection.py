"""How well ``detox_core.score`` tells each pair's language when none is given.

For every language of the editions, on texts whose language is known:

- the editions' toxic inputs (TextDetox 2024 test, 600 per language; the 2025 development
  inputs for fr, he, it, ja, hin and tt, 100 each), their ``lang`` column as the truth;
- ordinary sentences of the Universal Dependencies treebanks in the shared data (up to 600
  per language, ``data/ud/<lang>.tsv``), where present.

Per language it prints the share of texts :func:`detect` is sure of, how many of those it
gets right, and what :func:`detox_core.languages.detect.pair_languages` makes of the whole set given at once
(as a user scoring one language's file without ``lang`` would): the share assigned the right
language, a wrong one, or the call refused. Nothing is fitted to these texts; the thresholds
(confidence 0.5, lead 0.2, 90% agreement; a short text's words deciding with a lead of 0.5
log10 a word) were set before they were measured.

Run it with another checkout's code (``PYTHONPATH=<checkout> python benchmarks/...``) for a
baseline in the same session.

    python benchmarks/bench_language_detection.py [--per-language 600]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from detox_core import api, config  # noqa: E402
from detox_core.languages import EDITION_LANGUAGES, TEXTDETOX2024, TEXTDETOX2025, new_in  # noqa: E402
from detox_core.languages import detect as language_id  # noqa: E402
from detox_core.errors import DetoxInputError  # noqa: E402

#: The call that detects a file's languages (older checkouts, for a baseline: ``api._languages``).
PAIR_LANGUAGES = getattr(language_id, "pair_languages", None) or getattr(api, "_languages")
SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def corpora(per_language: int) -> dict[str, dict[str, list[str]]]:
    """source -> language -> texts."""
    out: dict[str, dict[str, list[str]]] = {}
    root = config.data_dir()
    for source, path, only in (("TextDetox 2024 test inputs", root / "textdetox2024" / "test_inputs.tsv", None),
                               ("TextDetox 2025 dev inputs", root / "textdetox2025" / "dev_inputs.tsv",
                                set(new_in(TEXTDETOX2025, TEXTDETOX2024)))):
        if not path.is_file():
            print(f"{source}: {path} not found (run `detox fetch-data`)", file=sys.stderr)
            continue
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
        out[source] = {lang: part["toxic_sentence"].head(per_language).tolist()
                       for lang, part in frame.groupby("lang") if lang and (only is None or lang in only)}
    ud = {}
    for path in sorted((SHARED / "ud").glob("*.tsv")):
        if path.stem in EDITION_LANGUAGES:  # <lang>.tsv, one column "text" (SOURCES.tsv lists them)
            frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
            ud[path.stem] = [t for t in frame["text"].head(per_language) if t.strip()]
    if ud:
        out["UD treebank sentences"] = ud
    return out


def measure(texts: list[str], truth: str) -> dict:
    found = language_id.detect(texts)
    sure = [code for code, is_sure in found if is_sure]
    row = {"n": len(texts), "sure": len(sure) / len(texts),
           "sure right": (sum(c == truth for c in sure) / len(sure)) if sure else float("nan")}
    try:
        langs, _ = PAIR_LANGUAGES(texts, None)
        row.update({"assigned right": sum(c == truth for c in langs) / len(texts),
                    "assigned wrong": sum(c != truth for c in langs) / len(texts), "refused": ""})
    except DetoxInputError as err:
        row.update({"assigned right": float("nan"), "assigned wrong": float("nan"), "refused": str(err)[:70]})
    wrong = pd.Series([c for c, s in found if s and c != truth], dtype=object).value_counts().head(3)
    row["sure but wrong, as"] = ", ".join(f"{k} {v}" for k, v in wrong.items())
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-language", type=int, default=600)
    args = parser.parse_args()
    t0 = time.perf_counter()
    language_id.wide_detector()
    print(f"wide detector loaded in {time.perf_counter() - t0:.1f} s")
    pd.set_option("display.width", 200, "display.max_colwidth", 70)
    for source, by_lang in corpora(args.per_language).items():
        t0 = time.perf_counter()
        rows = {lang: measure(texts, lang) for lang, texts in sorted(by_lang.items())}
        table = pd.DataFrame(rows).T
        print(f"\n{source} ({time.perf_counter() - t0:.1f} s)")
        print(table.to_string(float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
