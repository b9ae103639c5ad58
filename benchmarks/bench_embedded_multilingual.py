"""The embedded preset against people and the LLM judges, in every language, and its speed:
this version beside a baseline (an earlier checkout), measured by the same code in the same run.

1. System level, per language of the nine-language meta-evaluation sample (six systems x 80
   test inputs): Spearman between the systems' mean embedded J and their human J in the
   TextDetox 2024 final human evaluation (``leaderboard_human_axes.csv``: the test, read for
   these figures only; nothing is fitted, tuned or chosen on it), and the mean over the nine
   languages. The sample itself is "chosen on": the heads' design was chosen with two LLM
   judges' labels of it in view (never trained on: the held-out registry keeps its texts out). Goal >= 0.59 (the official 2024 GPU recipe on the same six systems), no
   language below 0; the best LLM judge (Llama-3.1-8B tuned) reaches 0.76. Six systems per
   language: one swapped pair of neighbours moves a language's Spearman by 0.06.
2. Sentence level: ROC-AUC of STA, SIM, FL and J against each of the five LLM judges' labels of
   the same pairs (positive: less toxic than the input, same meaning, not less fluent, J = 1).
   The heads' design was chosen with two of them in view (gpt-4.1-mini few-shot and
   Llama-3.1-8B tuned); the other three are reported only. Goal against the tuned Llama: STA,
   SIM >= 0.85, FL >= 0.65, J >= 0.78.
3. RUSSE-2022: ROC-AUC of each axis against the human axis on the 2,625 judged pairs, and of J
   against human J, with the system-level Spearman on the five judged systems' test outputs
   (:func:`detox_core.analysis.preset_agreement.measure`); and J's ROC-AUC apart on the pairs
   whose input earlier heads learnt from (342 of the 875 inputs are in TextDetox 2024's
   development references, which trained versions up to 5) and on the others.
4. People-written cases (``tests/embedded/data``: a polite rewrite against a deletion that
   leaves a broken sentence, one that leaves it rude, the copy, an unrelated sentence and
   another language): how often the polite rewrite gets the highest J.
5. Speed and memory, per language, in a fresh process: 200 test inputs with new outputs (every
   output through the model of meaning), the same submission again (warm), one new live pair;
   the resident memory after the first scores. Goal: no slower than the baseline by more than
   a fifth.

Run: ``.venv/bin/python benchmarks/bench_embedded_multilingual.py [--baseline DIR]``, DIR a
checkout of an earlier version whose data folder is this one's (``DETOX_DATA_DIR``) with its
models trained (its ``train-embedded``). Without ``--baseline`` only this version is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LANGS = ("am", "ar", "de", "en", "es", "hi", "ru", "uk", "zh")
NEW = ("fr", "he", "hin", "it", "ja", "tt")
JUDGES = ("gpt-4.1-mini_fewshot", "llama_31_8b_tuned", "gpt-4.1-mini", "gpt-4.1-nano",
          "judgelm_llama_31_8b_ckpt_ep2_merged")
CHOSEN_ON = JUDGES[:2]
AXES = (("sta", "non-toxicity"), ("sim", "content"), ("fl", "fluency"), ("j", "J"))
SPEED_PAIRS = 200
GOALS = {"mean_spearman": 0.59, "sta": 0.85, "sim": 0.85, "fl": 0.65, "j": 0.78}


def _auc(score, label) -> float:
    import numpy as np
    from sklearn.metrics import roc_auc_score

    label = np.asarray(label, float)
    score = np.asarray(score, float)
    ok = ~np.isnan(label) & ~np.isnan(score)
    y = label[ok] >= 1
    return float(roc_auc_score(y, score[ok])) if 0 < y.sum() < len(y) else float("nan")


def measure(speed: bool = True) -> dict:
    """Every figure of the module's docstring for the code importable as ``detox_core``."""
    import numpy as np
    import pandas as pd

    from detox_core import config, data
    from detox_core.analysis import preset_agreement, preset_agreement_by_language
    from detox_core.data.judge_labels import load_llm_judgements, load_pairs
    from detox_core.metrics.embedded.preset import EmbeddedPreset

    out: dict = {"version": EmbeddedPreset.version}
    root = config.data_dir() / "textdetox2024"
    pairs = load_pairs(root / "meta_eval" / "pairs.tsv")
    result = preset_agreement_by_language.measure("embedded")
    out["spearman"] = {lang: result.figures[lang].spearman[0] for lang in LANGS}
    out["system_j"] = {lang: result.figures[lang].system_j for lang in LANGS}
    scores = []
    for lang in LANGS:
        g = pairs[pairs["lang"] == lang].reset_index(drop=True)
        frame = EmbeddedPreset(langs=[lang] * len(g)).score(g["toxic_sentence"].tolist(), g["neutral_sentence"].tolist())
        frame["id"] = g["id"].to_numpy()
        frame["lang"] = lang
        scores.append(frame)
    scored = pd.concat(scores, ignore_index=True).set_index("id")
    out["auc"] = {}
    for judge in JUDGES:
        labels = load_llm_judgements(root / "meta_eval" / "llm_judgements" / f"{judge}.tsv", pairs=pairs).set_index("id")
        for lang in LANGS:
            g = scored[scored["lang"] == lang]
            lab = labels.loc[g.index]
            for axis, column in AXES:
                out["auc"][f"{judge}|{lang}|{axis}"] = _auc(g[axis], lab[column])
    # RUSSE-2022: per axis against people, and J at sentence and system level
    edition = preset_agreement.measurable_editions()[0]
    human = data.load_human_judgements(edition.path(edition.human, config.data_dir()))
    refs = [[r] if isinstance(r, str) and r.strip() else [] for r in human["neutral_sentence_reference"]]
    frame = EmbeddedPreset(langs=["ru"] * len(human)).score(human["toxic_sentence"].tolist(),
                                                            human["neutral_sentence"].tolist(), refs)
    out["russe_axes"] = {axis: _auc(frame[axis], (human[col].to_numpy(float) >= 0.5).astype(float))
                         for axis, col in (("sta", "non-toxicity"), ("sim", "content"), ("fl", "fluency"), ("j", "J"))}
    # the pairs whose input sits in TextDetox 2024's development references (trained on before the
    # held-out registry), apart from the others: what the leak was worth
    from detox_core.editions.held_out import normalise

    dev = pd.read_csv(root / "dev_references.tsv", sep="\t", dtype=str, keep_default_na=False)
    seen = {normalise(t) for t in dev["toxic_sentence"]}
    leaked = np.asarray([normalise(t) in seen for t in human["toxic_sentence"]])
    j_human = (human["J"].to_numpy(float) >= 0.5).astype(float)
    out["russe_leak"] = {"leaked_pairs": int(leaked.sum()), "leaked": _auc(frame["j"][leaked], j_human[leaked]),
                         "unseen": _auc(frame["j"][~leaked], j_human[~leaked])}
    russe = preset_agreement.measure("embedded")
    out["russe"] = {"auc": russe.auc, "spearman": russe.spearman, "sentence": russe.sentence(), "system": russe.system()}
    out["cases"] = _cases()
    if speed:
        out["speed"] = _speed()
    return out


def _cases() -> dict:
    """Per kind of candidate: how often the polite rewrite's J is above it."""
    import pandas as pd

    from detox_core.metrics.embedded.preset import EmbeddedPreset

    folder = ROOT / "tests" / "embedded" / "data"
    wins: dict[str, list[bool]] = {}
    tables = (("deletion_cases.tsv", ("broken", "rude")), ("judge_cases.tsv", ("toxic", "unrelated", "other_text",
                                                                               "deletion")))
    for name, kinds in tables:
        cases = pd.read_csv(folder / name, sep="\t", dtype=str, quoting=3, keep_default_na=False)
        for case in cases.itertuples():
            candidates = [case.polite, *(getattr(case, k) for k in kinds)]
            frame = EmbeddedPreset(langs=[case.lang] * len(candidates)).score([case.toxic] * len(candidates), candidates)
            j = frame["j"].to_numpy()
            for k, kind in enumerate(kinds, start=1):
                label = {"toxic": "copy", "other_text": "other language"}.get(kind, kind)
                wins.setdefault(label, []).append(bool(j[0] > j[k]))
    return {k: [sum(v), len(v)] for k, v in wins.items()}


def _speed() -> dict:
    """Per language, in a fresh process (:func:`_speed_child`)."""
    run = subprocess.run([sys.executable, __file__, "--speed-child"], capture_output=True, text=True, check=False,
                         cwd=os.getcwd(), env=os.environ.copy())
    if run.returncode != 0:
        return {"error": run.stderr[-2000:]}
    return json.loads(run.stdout.strip().splitlines()[-1])


def _speed_child() -> None:
    import numpy as np
    import pandas as pd

    from detox_core import config
    from detox_core.models import meaning
    from detox_core.metrics.embedded.preset import EmbeddedPreset

    def rss() -> float:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) / 1024 for line in fh if line.startswith("VmRSS:"))

    root = config.data_dir()
    test = pd.read_csv(root / "textdetox2024" / "test_inputs.tsv", sep="\t", dtype=str, keep_default_na=False)
    dev25 = pd.read_csv(root / "textdetox2025" / "dev_inputs.tsv", sep="\t", dtype=str, keep_default_na=False)
    figures: dict = {"rss_start": rss()}
    t0 = time.perf_counter()
    for _, step in EmbeddedPreset.warm_steps():
        step()
    figures["warm_s"] = time.perf_counter() - t0
    figures["rss_warm"] = rss()
    disk = list(meaning._DISK)
    meaning._DISK[:] = [None]  # every output embedded now, none read from an earlier run
    rng = np.random.default_rng(0)
    per = {}
    for lang in (*LANGS, *NEW):
        source = dev25 if lang in NEW else test
        inputs = source.loc[source["lang"] == lang, "toxic_sentence"].tolist()[:SPEED_PAIRS]
        # new outputs: each input less its last word, and a tag that no other text has
        outputs = [" ".join(t.split()[:-1]) + f" {k}" if len(t.split()) > 1 else t[: max(1, len(t) // 2)] + f" {k}"
                   for k, t in enumerate(inputs)]
        preset = EmbeddedPreset(langs=[lang] * len(inputs))
        t0 = time.perf_counter()
        preset.score(inputs, outputs)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        preset.score(inputs, outputs)
        warm = time.perf_counter() - t0
        times = []
        for _ in range(5):
            k = int(rng.integers(len(inputs)))
            out = inputs[k][: max(1, len(inputs[k]) // 2)] + str(rng.integers(1_000_000))
            t0 = time.perf_counter()
            EmbeddedPreset(langs=[lang]).score([inputs[k]], [out])
            times.append(time.perf_counter() - t0)
        per[lang] = {"pairs": len(inputs), "new_pairs_s": len(inputs) / cold, "warm_pairs_s": len(inputs) / warm,
                     "live_ms": float(np.median(times) * 1000)}
    meaning._DISK[:] = disk
    figures["languages"] = per
    figures["rss_after"] = rss()
    print(json.dumps(figures))


def _baseline(folder: Path) -> dict:
    """:func:`measure` run on the checkout ``folder`` (its code imported first)."""
    env = {**os.environ, "PYTHONPATH": str(folder)}
    run = subprocess.run([sys.executable, __file__, "--measure-json"], capture_output=True, text=True, check=False,
                         cwd=folder, env=env)
    if run.returncode != 0:
        raise SystemExit(f"the baseline could not be measured:\n{run.stderr[-3000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def _report(after: dict, before: dict | None) -> bool:
    import numpy as np
    import pandas as pd

    pd.set_option("display.width", 220)
    states = {"before": before, "after": after} if before else {"after": after}
    ok = True
    print("1. System-level Spearman against the TextDetox 2024 human J (six systems per language)\n")
    table = pd.DataFrame({s: f["spearman"] for s, f in states.items()}).T
    table["mean"] = table.mean(axis=1)
    print("   " + table.round(2).to_string().replace("\n", "\n   "))
    mean = float(table.loc["after", "mean"])
    worst = float(table.loc["after", list(LANGS)].min())
    print(f"\n   mean {mean:.3f} (goal >= {GOALS['mean_spearman']}, moonshot 0.76); lowest language {worst:+.2f} "
          "(goal >= 0)")
    ok &= mean >= GOALS["mean_spearman"] and worst >= 0
    print("\n2. Sentence-level ROC-AUC against the LLM judges, mean over the nine languages (chosen with the first "
          "two in view; the others reported only)\n")
    rows = []
    for state, f in states.items():
        for judge in JUDGES:
            row = {"state": state, "judge": judge}
            for axis, _ in AXES:
                vals = [f["auc"].get(f"{judge}|{lang}|{axis}", np.nan) for lang in LANGS]
                row[axis] = float(np.nanmean(vals)) if not np.isnan(vals).all() else np.nan
            rows.append(row)
    print("   " + pd.DataFrame(rows).round(3).to_string(index=False).replace("\n", "\n   "))
    llama = {axis: float(np.nanmean([after["auc"][f"llama_31_8b_tuned|{lang}|{axis}"] for lang in LANGS]))
             for axis, _ in AXES}
    print("\n   per language, after, against Llama-3.1-8B tuned\n")
    per = pd.DataFrame({axis: {lang: after["auc"][f"llama_31_8b_tuned|{lang}|{axis}"] for lang in LANGS}
                        for axis, _ in AXES})
    print("   " + per.round(3).to_string().replace("\n", "\n   "))
    goals = " ".join(f"{a.upper()} {llama[a]:.3f} (goal >= {GOALS[a]})" for a in ("sta", "sim", "fl", "j"))
    print(f"\n   against Llama-3.1-8B tuned: {goals}")
    ok &= all(llama[a] >= GOALS[a] for a in ("sta", "sim", "fl", "j"))
    print("\n3. RUSSE-2022 human sample (2,625 judged pairs; five judged systems)\n")
    for state, f in states.items():
        axes = "  ".join(f"{k.upper()} {v:.3f}" for k, v in f["russe_axes"].items())
        print(f"   {state:>6}: per-axis ROC-AUC against people {axes}; {f['russe']['sentence']}; "
              f"{f['russe']['system']}")
    if before:
        fell = [k for k in after["russe_axes"] if after["russe_axes"][k] < before["russe_axes"][k] - 0.005]
        print(f"   fell: {', '.join(fell) if fell else 'none'}")
    for state, f in states.items():
        leak = f.get("russe_leak")
        if leak:
            print(f"   {state:>6}: J ROC-AUC on the {leak['leaked_pairs']:,} pairs whose input is in TextDetox 2024's "
                  f"dev references {leak['leaked']:.3f}, on the others {leak['unseen']:.3f}")
    print("\n4. People-written cases: the polite rewrite's J above ...\n")
    for state, f in states.items():
        print(f"   {state:>6}: " + "; ".join(f"{k} {w} of {n}" for k, (w, n) in f["cases"].items()))
    print("\n5. Speed (a fresh process; 200 test inputs per language, 2025 development inputs for the new ones)\n")
    for state, f in states.items():
        sp = f.get("speed") or {}
        if "languages" not in sp:
            print(f"   {state}: not measured ({sp.get('error', 'skipped')[:300]})")
            continue
        langs = sp["languages"]
        new = np.mean([v["new_pairs_s"] for v in langs.values()])
        warm = np.mean([v["warm_pairs_s"] for v in langs.values()])
        live = np.median([v["live_ms"] for v in langs.values()])
        print(f"   {state:>6}: warm-up {sp['warm_s']:.1f} s, memory {sp['rss_warm']:.0f} MB warm, {sp['rss_after']:.0f} MB "
              f"after scoring; new outputs {new:.0f} pairs/s, the same submission again {warm:.0f} pairs/s, one live "
              f"pair {live:.0f} ms (median over languages); Russian: {langs['ru']['new_pairs_s']:.0f} new pairs/s, "
              f"{langs['ru']['live_ms']:.0f} ms a live pair")
    if before and "languages" in (before.get("speed") or {}) and "languages" in (after.get("speed") or {}):
        ratio = np.mean([v["new_pairs_s"] for v in after["speed"]["languages"].values()]) / \
            np.mean([v["new_pairs_s"] for v in before["speed"]["languages"].values()])
        print(f"   new outputs: after / before = {ratio:.2f} (goal >= 0.8)")
        live = np.median([v["live_ms"] for v in after["speed"]["languages"].values()]) / \
            np.median([v["live_ms"] for v in before["speed"]["languages"].values()])
        memory = after["speed"]["rss_after"] / before["speed"]["rss_after"]
        print(f"   one live pair: after / before = {live:.2f}; memory after scoring: after / before = {memory:.2f} "
              "(goals <= 1.2)")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", metavar="DIR", help="a checkout of an earlier version, measured the same way")
    parser.add_argument("--baseline-json", metavar="FILE",
                        help="the baseline's figures as an earlier `--measure-json` run printed them")
    parser.add_argument("--no-speed", action="store_true", help="agreement only")
    parser.add_argument("--measure-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--speed-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.speed_child:
        _speed_child()
        return 0
    if args.measure_json:
        print(json.dumps(measure(speed=not args.no_speed)))
        return 0
    sys.path.insert(0, str(ROOT))
    before = _baseline(Path(args.baseline).resolve()) if args.baseline else \
        json.loads(Path(args.baseline_json).read_text().strip().splitlines()[-1]) if args.baseline_json else None
    after = measure(speed=not args.no_speed)
    ok = _report(after, before)
    print("\nall goals met" if ok else "\nsome goals NOT met (above)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
