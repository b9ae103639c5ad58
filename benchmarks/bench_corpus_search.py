"""How fast the Corpus page answers a search over train+dev+test (8,623 pairs).

Prints two figures per query:
- ``core``: :func:`detox_core.analysis.corpus.filter_corpus` plus the statistics of the hits;
- ``page``: a whole rerun of the Corpus page after the search box changes (the script
  run a browser waits for: filtering, statistics, table and plots serialised), measured
  with Streamlit's AppTest on warm caches.

Target: every page rerun under 0.5 s. Run: ``make bench`` (or
``.venv/bin/python benchmarks/bench_corpus_search.py``).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from detox_core import data  # noqa: E402
from detox_core import editions
from detox_core.analysis.corpus import corpus_stats, CorpusQuery, filter_corpus, prepare_corpus, prepare_edits  # noqa: E402

QUERIES = [
    ("substring, common", CorpusQuery(text="что")),
    ("substring, swear word", CorpusQuery(text="дебил")),
    ("substring, no hit", CorpusQuery(text="zzzzqqq")),
    ("regex, word boundary", CorpusQuery(text=r"\bху\w+", regex=True)),
    ("regex, paraphrases only", CorpusQuery(text=r"(плох|глуп)\w*", regex=True, search_in="neutral")),
    ("substring + filters", CorpusQuery(text="а", n_refs=(2, 3), min_words=5, max_words=30, lexicon="with")),
]
REPEATS = 5


def main() -> int:
    try:
        frame = editions.load_dataset("russe2022", ["train", "dev", "test"])
    except data.DataMissingError as err:
        print(err)
        return 1
    lexicon = editions.load_dataset_lexicon("russe2022")
    t0 = time.perf_counter()
    prepared = prepare_corpus(frame, lexicon)
    edits = prepare_edits(prepared)
    print(f"corpus: {len(prepared):,} pairs, {len(edits):,} paraphrases; one-off preparation "
          f"{time.perf_counter() - t0:.2f} s (cached by the app for all sessions)\n")

    at = AppTest.from_file(str(ROOT / "pages" / "corpus.py"), default_timeout=120)
    at.run()  # warm the caches
    if at.exception:
        print("page failed:", [e.value for e in at.exception])
        return 1

    print(f"{'query':<26} {'hits':>6} {'core median':>12} {'page median':>12} {'page max':>9}")
    worst = 0.0
    for name, query in QUERIES:
        core, page = [], []
        for _ in range(REPEATS):
            t = time.perf_counter()
            hits = filter_corpus(prepared, query)
            corpus_stats(hits, edits, lexicon)
            core.append(time.perf_counter() - t)
        at.toggle(key="regex").set_value(query.regex)
        at.segmented_control(key="in").set_value({"both": "both", "toxic": "toxic", "neutral": "paraphrases"}[query.search_in])
        at.multiselect(key="refs").set_value(list(query.n_refs))
        lo, hi = at.slider(key="len").min, at.slider(key="len").max
        at.slider(key="len").set_range(query.min_words or lo, query.max_words or hi)
        at.selectbox(key="lex").set_value({"any": "any", "with": "present", "without": "absent"}[query.lexicon])
        at.run()
        for i in range(REPEATS):
            # Alternate with an empty search so every timed run is a real change.
            at.text_input(key="q").input("").run()
            t = time.perf_counter()
            at.text_input(key="q").input(query.text).run()
            page.append(time.perf_counter() - t)
        if at.exception:
            print("page failed:", [e.value for e in at.exception])
            return 1
        shown = at.metric[0].value
        worst = max(worst, max(page))
        print(f"{name:<26} {shown:>6} {statistics.median(core) * 1000:>9.1f} ms "
              f"{statistics.median(page) * 1000:>9.1f} ms {max(page) * 1000:>6.0f} ms")
        at.multiselect(key="refs").set_value([])
        at.slider(key="len").set_range(lo, hi)
        at.selectbox(key="lex").set_value("any")
    print(f"\nslowest page rerun: {worst * 1000:.0f} ms (target < 500 ms): {'OK' if worst < 0.5 else 'TOO SLOW'}")
    return 0 if worst < 0.5 else 2


if __name__ == "__main__":
    sys.exit(main())
