"""The embedded preset: agreement with human judgements, and speed on this CPU.

2. Sentence-level ROC-AUC of the embedded STA, SIM, FL and J against the human labels
   of ``human_eval_test.csv`` (2,625 judged outputs of 3 systems; the models never saw
   these labels), beside the original GPU metrics' columns of the same file.
   Targets: STA >= 0.76, SIM >= 0.69, FL >= 0.62, J >= 0.68.
1. Throughput of the full STA+SIM+FL+J+chrF on the 875 test pairs of the shipped
   system outputs, one process: the first submission (every text new, inputs included)
   and the following ones (test inputs and references already memoised).
   Target: >= 1,000 pairs per second.

Run: ``.venv/bin/python benchmarks/bench_embedded.py`` (needs ``make run`` or
``make test`` to have fetched the data and trained the models).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sklearn.metrics import roc_auc_score  # noqa: E402

from detox_core import data  # noqa: E402
from detox_core.embedded.loader import load_models  # noqa: E402
from detox_core.embedded.recipe import EmbeddedMissingError, load_navec, morph_analyzer  # noqa: E402
from detox_core.metrics import score  # noqa: E402

OUTPUTS = ("delete", "t5_base_10000", "ruprompts", "orzhan", "anton_alexandrovich", "barracudas", "ekaterina_totmina")


def main() -> int:
    root = data.data_dir() / "russe2022"
    try:
        load_models()
        human = data.load_human_judgements(root / "human_eval_test.csv")
        test = data.load_corpus(root / "test_references.tsv")
    except (EmbeddedMissingError, data.DetoxInputError) as err:
        print(err)
        return 1

    print("1. Throughput on the 875 test pairs (full STA+SIM+FL+J+chrF, fresh process)\n")
    inputs = test["toxic_comment"].tolist()
    refs = [[r] for r in test["neutral_comment1"]]
    load_navec()
    morph_analyzer()
    rates = []
    for k, name in enumerate(OUTPUTS):
        path = root / "outputs" / f"{name}_test.txt"
        outputs = data.load_submission(path, inputs=inputs)["neutral_sentence"].tolist()
        t = time.perf_counter()
        score(inputs, outputs, refs, preset="embedded")
        rate = len(inputs) / (time.perf_counter() - t)
        rates.append(rate)
        note = "first: inputs, references and outputs all new" if k == 0 else "inputs and references memoised"
        print(f"{name:<22} {rate:7.0f} pairs/s   ({note})")
    later = rates[1:]
    print(f"\nfollowing submissions: {min(later):.0f}-{max(later):.0f} pairs/s (target >= 1,000); first: {rates[0]:.0f} pairs/s")
    print("\n2. Sentence-level ROC-AUC against the human labels (n = 2,625)\n")
    frame = score(human["toxic_sentence"].tolist(), human["neutral_sentence"].tolist(),
                  [[r] for r in human["neutral_sentence_reference"]], preset="embedded")
    rows = [
        ("STA", "non-toxicity", frame["sta"], "CLS_OLD_GEN", 0.76),
        ("SIM", "content", frame["sim"], "SIM-INPUT-GEN", 0.69),
        ("FL", "fluency", frame["fl"], "XCOMET-LITE", 0.62),
        ("J", "J", frame["j"], None, 0.68),
    ]
    print(f"{'axis':<5} {'human label':<13} {'embedded':>9} {'target':>7}   original GPU metric")
    ok = True
    for axis, label, values, ref_col, target in rows:
        auc = roc_auc_score(human[label], values)
        ok &= auc >= target
        ref = f"{ref_col} {roc_auc_score(human[label], human[ref_col]):.3f}" if ref_col else ""
        print(f"{axis:<5} {label:<13} {auc:9.3f} {target:7.2f}   {ref}")

    return 0 if ok and min(later) >= 1000 else 2


if __name__ == "__main__":
    sys.exit(main())
