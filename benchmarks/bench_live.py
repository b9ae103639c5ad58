"""How fast the Live scoring page answers a new pair with warm models (embedded preset).

Runs the page with Streamlit's AppTest in one process, as a server does: the server's
warm-up (:mod:`detox_core.metrics.warmup`, what ``python -m detox_core serve`` starts) first, then
the page opened with nothing typed, the first pair once the models are warm, then 20 runs
with a new (toxic sentence, rewrite) pair from the test set each, timing the whole script
run (scoring, the input's own STA, the cards). Targets: the first score once warm under
1 s, every warm score under 0.3 s.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from detox_core import data, editions  # noqa: E402
from detox_core.metrics import warmup  # noqa: E402

FIRST_TARGET_S = 1.0
WARM_TARGET_S = 0.3


def main() -> int:
    try:
        test = editions.load_dataset("russe2022", ["test"])
    except data.DataMissingError as err:
        print(err)
        return 1
    t = time.perf_counter()
    warmup.start()
    state = warmup.wait(timeout=600)
    print(f"warm-up: {time.perf_counter() - t:.1f} s ({state.line() or 'nothing warmed'}"
          + "".join(f"; {name}: {why}" for name, why in state.errors.items()) + ")")
    at = AppTest.from_file(str(ROOT / "pages" / "live_scoring.py"), default_timeout=120)
    t = time.perf_counter()
    at.run()  # the page as a visitor opens it: its imports and loaders, nothing typed yet
    opened = time.perf_counter() - t
    at.session_state["live_input"] = "ты дебил, иди отсюда"
    at.session_state["live_candidates"] = "ты неправ, иди отсюда"
    t = time.perf_counter()
    at.run()  # the first score, on warm models
    first = time.perf_counter() - t
    if at.exception:
        print([e.value for e in at.exception])
        return 1
    times = []
    for _, row in test.iloc[100:120].iterrows():
        at.session_state["live_input"] = row["toxic_comment"]
        at.session_state["live_candidates"] = row["neutral_comment1"]
        t = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t)
    print(f"the page opened (its first run, nothing typed): {opened * 1000:.0f} ms")
    print(f"first pair once warm: {first * 1000:.0f} ms (target < {FIRST_TARGET_S * 1000:.0f} ms)")
    print(f"new pair, warm models: median {statistics.median(times) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms over {len(times)} pairs (target < {WARM_TARGET_S * 1000:.0f} ms)")
    return 0 if max(times) < WARM_TARGET_S and first < FIRST_TARGET_S else 2


if __name__ == "__main__":
    sys.exit(main())
