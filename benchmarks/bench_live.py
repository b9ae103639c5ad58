"""How fast the Live scoring page answers a new pair with warm models (embedded preset).

Runs the page with Streamlit's AppTest: one run to load the models, then 20 runs with
a new (toxic sentence, rewrite) pair from the test set each, timing the whole script
run (scoring, the input's own STA, the cards and their charts). Target: under 1 s.
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


def main() -> int:
    try:
        test = editions.load_dataset("russe2022", ["test"])
    except data.DataMissingError as err:
        print(err)
        return 1
    at = AppTest.from_file(str(ROOT / "pages" / "live_scoring.py"), default_timeout=120)
    at.session_state["live_input"] = "ты дебил, иди отсюда"
    at.session_state["live_candidates"] = "ты неправ, иди отсюда"
    at.run()  # loads the models
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
    print(f"new pair, warm models: median {statistics.median(times) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms over {len(times)} pairs (target < 1000 ms)")
    return 0 if max(times) < 1.0 else 2


if __name__ == "__main__":
    sys.exit(main())
