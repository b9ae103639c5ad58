"""The textdetox2024 preset against the task's official evaluation script, on the CPU.

The baseline is ``clef24/text-detoxification/evaluate.py`` of github.com/pan-webis-de/pan-code,
reimplemented here line by line (:func:`official_scores`): batches of 32 in file order,
PyTorch fp32, STA = ``softmax(logits)[:, 0]`` of the toxicity classifier on the output
(``style_target_label=0``, label 0 = neutral), SIM = ``1 - scipy.spatial.distance.cosine``
of the LaBSE embeddings of input and output (each batch encodes its 32 inputs and 32
outputs in one ``encode`` call), FL = sacrebleu ``CHRF().sentence_score(output, [reference])
/ 100``, J = STA x SIM x FL per sentence. The one liberty: the official ``classify_texts``
turns an exception in a batch into zeros; here it is raised.

The preset side is what the app runs: ``get_preset("textdetox2024", models={role: folder})``
over a fresh :class:`detox_core.models.ModelPool` on the CPU.

Models: full size, random weights (fixed seed), built offline with the real
architectures: STA an ``XLMRobertaForSequenceClassification`` with 2 labels (0 neutral,
1 toxic) and the config of ``textdetox/xlmr-large-toxicity-classifier``: its hub
config.json says hidden 768, 12 layers, 12 heads, intermediate 3072, vocab 250,002,
514 positions (an XLM-R *base*, 1.11 GB, despite the name); ``--sta-size large`` builds
XLM-R large instead (1024, 24, 16, 4096). The classification head's output layer is
rescaled and shifted on 72 dev inputs so that the random STA spans (0, 1) rather than
sitting at one value for every text. SIM is
``sentence-transformers/LaBSE`` as a sentence-transformers folder: BERT-base with a
501,153 vocabulary, CLS pooling, Dense 768->768 tanh, Normalize. The tokenizers are
trained on the 2024 dev and test inputs (a Unigram one wrapped as XLM-R's, a WordPiece
one as BERT's); their vocabularies are smaller than the models' embedding matrices, so
part of each matrix is never used (the sizes and the compute per token are the real ones).

Data: the first ``--rows-per-language`` rows of each language of ``test_inputs.tsv`` in
file order. Outputs: each input with its longest word removed (a third of the characters
from the middle for a text without spaces), so that STA, SIM and chrF all vary. The
test split has no public references: the input itself serves as a pseudo-reference.

Prints the rows, the loading and scoring wall times of both sides, their ratio, and the
largest absolute difference per axis (target <= 1e-4). Run:
``.venv/bin/python benchmarks/bench_textdetox2024.py`` (measured on a busy 2-core machine:
2 minutes to build the models, 29 for the official procedure, 12 for the preset;
``--rows-per-language 5`` for a quick look; ``--keep DIR`` to build the models once).
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from tqdm.auto import tqdm, trange  # noqa: E402

from detox_core import data  # noqa: E402
from detox_core.data.multilingual import load_multilingual_inputs  # noqa: E402
from detox_core.metrics import get_preset  # noqa: E402
from detox_core.models import ModelPool  # noqa: E402

TOLERANCE = 1e-4
LABELS = {0: "neutral", 1: "toxic"}  # as in the real classifier's config.json
# The STA model: the hub config of textdetox/xlmr-large-toxicity-classifier, and XLM-R large.
XLMR_SIZES = {
    "base": dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072),
    "large": dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096),
}
XLMR_FULL = dict(vocab_size=250_002, max_position_embeddings=514)
LABSE_FULL = dict(vocab_size=501_153, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                  intermediate_size=3072, max_position_embeddings=512)
HEAD_SPREAD = 2.0  # std of the STA logit difference on a sample, so that P(neutral) varies


# ----------------------------------------------------------------------------- data


def load_inputs(split: str):
    """The 2024 inputs of ``split`` (``dev`` or ``test``), in file order."""
    return load_multilingual_inputs(data.data_dir() / "textdetox2024" / f"{split}_inputs.tsv")


def pick_rows(frame, n: int) -> tuple[list[str], list[str]]:
    """The first ``n`` inputs of each language of ``frame``, in file order."""
    frame = frame.sort_values("index", kind="stable")
    frame = frame[frame.groupby("lang").cumcount() < n]
    return frame["toxic_comment"].tolist(), frame["lang"].tolist()


def rewrite(text: str) -> str:
    """A crude 'delete' rewrite: drop the longest word (or, without spaces, the middle third)."""
    words = text.split()
    if len(words) > 1:
        longest = max(range(len(words)), key=lambda i: len(words[i]))
        return " ".join(words[:longest] + words[longest + 1 :])
    n = len(text)
    return text[: n // 3] + text[n // 3 + max(1, n // 3) :] if n > 1 else text


# ----------------------------------------------------------------------------- models


def xlmr_tokenizer(texts: list[str], vocab_size: int, max_length: int = 512):
    """A Unigram tokenizer in XLM-R's layout (<s>=0, <pad>=1, </s>=2, <unk>=3, <mask>)."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import XLMRobertaTokenizerFast

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tk = Tokenizer(models.Unigram())
    tk.normalizer = normalizers.NFKC()
    tk.pre_tokenizer = pre_tokenizers.Metaspace()
    tk.decoder = decoders.Metaspace()
    tk.train_from_iterator(texts, trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=specials,
                                                          unk_token="<unk>", show_progress=False))
    tk.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    return XLMRobertaTokenizerFast(tokenizer_object=tk, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                                   cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
                                   model_max_length=max_length)


def bert_tokenizer(texts: list[str], vocab_size: int, max_length: int = 512):
    """A cased WordPiece tokenizer in BERT's layout (LaBSE is cased)."""
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertTokenizerFast

    wp = BertWordPieceTokenizer(lowercase=False, strip_accents=False)
    wp.train_from_iterator(texts, vocab_size=vocab_size, min_frequency=1)
    return BertTokenizerFast(tokenizer_object=wp._tokenizer, model_max_length=max_length, do_lower_case=False,
                             unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]", cls_token="[CLS]",
                             mask_token="[MASK]")


def build_sta(folder: Path, tok, arch: dict, sample: list[str], seed: int = 0) -> Path:
    """An XLMRobertaForSequenceClassification with random weights, saved with its tokenizer.

    A random head puts P(neutral) of every text near one value (the [CLS] states of a
    random encoder are alike); its output layer is rescaled and shifted on ``sample``
    so that the logit difference has mean 0 and spread ``HEAD_SPREAD`` there."""
    from transformers import XLMRobertaConfig, XLMRobertaForSequenceClassification

    torch.manual_seed(seed)
    cfg = XLMRobertaConfig(**arch, type_vocab_size=1, layer_norm_eps=1e-5, pad_token_id=1, bos_token_id=0,
                           eos_token_id=2, num_labels=2, id2label=LABELS, label2id={v: k for k, v in LABELS.items()},
                           problem_type="single_label_classification")
    model = XLMRobertaForSequenceClassification(cfg).eval()
    with torch.no_grad():
        diff = []
        for i in range(0, len(sample), 16):
            logits = model(**tok(sample[i : i + 16], return_tensors="pt", padding=True, truncation=True)).logits
            diff.append(logits[:, 0] - logits[:, 1])
        diff = torch.cat(diff)
        scale = HEAD_SPREAD / max(float(diff.std()), 1e-6)
        head = model.classifier.out_proj
        head.weight.mul_(scale)
        head.bias.mul_(scale)
        shift = scale * float(diff.mean()) / 2
        head.bias.add_(torch.tensor([-shift, shift]))
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    del model
    gc.collect()
    return folder


def build_sim(folder: Path, tok, arch: dict, seed: int = 1, max_seq_length: int = 256) -> Path:
    """LaBSE's layout: BERT -> CLS pooling -> Dense tanh -> Normalize, as a sentence-transformers folder."""
    from sentence_transformers import SentenceTransformer
    from transformers import BertConfig, BertModel

    try:
        from sentence_transformers.sentence_transformer.modules import Dense, Normalize, Pooling, Transformer
    except ImportError:  # older sentence-transformers
        from sentence_transformers.models import Dense, Normalize, Pooling, Transformer

    encoder = folder.parent / f"{folder.name}-encoder"
    torch.manual_seed(seed)
    cfg = BertConfig(**arch, type_vocab_size=2, layer_norm_eps=1e-12, pad_token_id=0)
    BertModel(cfg, add_pooling_layer=True).eval().save_pretrained(encoder)
    tok.save_pretrained(encoder)
    gc.collect()
    word = Transformer(str(encoder), max_seq_length=max_seq_length, do_lower_case=False)
    dim = word.get_embedding_dimension()
    modules = [word, Pooling(dim, pooling_mode="cls"), Dense(dim, dim, bias=True, activation_function=torch.nn.Tanh()),
               Normalize()]
    SentenceTransformer(modules=modules, device="cpu").save(str(folder))
    del word, modules
    shutil.rmtree(encoder, ignore_errors=True)
    gc.collect()
    return folder


def build_models(work: Path, texts: list[str], sample: list[str], sta_size: str) -> dict[str, Path]:
    """Both models under ``work`` (one already there, from an earlier ``--keep``, is reused)."""
    sta, sim = work / f"sta-{sta_size}", work / "sim"
    if not (sta / "config.json").is_file():
        build_sta(sta, xlmr_tokenizer(texts, vocab_size=32_000), {**XLMR_FULL, **XLMR_SIZES[sta_size]}, sample)
    if not (sim / "modules.json").is_file():
        build_sim(sim, bert_tokenizer(texts, vocab_size=32_000), LABSE_FULL)
    return {"sta": sta, "sim": sim}


# ----------------------------------------------------------------------------- the official procedure
# clef24/text-detoxification/evaluate.py: prepare_target_label, classify_texts,
# evaluate_sta, evaluate_sim (efficient_version=False), evaluate_style_transfer.


def prepare_target_label(model, target_label):
    if target_label in model.config.id2label:
        pass
    elif target_label in model.config.label2id:
        target_label = model.config.label2id.get(target_label)
    elif isinstance(target_label, str) and target_label.isnumeric() and int(target_label) in model.config.id2label:
        target_label = int(target_label)
    else:
        raise ValueError(f'target_label "{target_label}" not in model labels or ids: {model.config.id2label}.')
    assert isinstance(target_label, int)
    return target_label


def classify_texts(model, tokenizer, texts, target_label, batch_size=32, desc="Calculating STA scores"):
    target_label = prepare_target_label(model, target_label)
    res = []
    for i in trange(0, len(texts), batch_size, desc=desc):
        inputs = tokenizer(texts[i : i + batch_size], return_tensors="pt", padding=True, truncation=True,
                           max_length=512).to(model.device)
        with torch.no_grad():
            logits = model(**inputs).logits
            if logits.shape[-1] > 1:
                preds = torch.softmax(logits, -1)[:, target_label]
            else:
                preds = torch.sigmoid(logits)[:, 0]
            res.append(preds.cpu().numpy())
    return np.concatenate(res)


def evaluate_sim(model, original_texts, rewritten_texts, batch_size=32):
    from scipy.spatial.distance import cosine

    similarities = []
    batch_size = min(batch_size, len(original_texts))
    for i in trange(0, len(original_texts), batch_size, desc="Calculating SIM scores"):
        original_batch = original_texts[i : i + batch_size]
        rewritten_batch = rewritten_texts[i : i + batch_size]
        embeddings = model.encode(original_batch + rewritten_batch)
        original_embeddings = embeddings[: len(original_batch)]
        rewritten_embeddings = embeddings[len(original_batch) :]
        similarities.extend(1 - cosine(o, r) for o, r in zip(original_embeddings, rewritten_embeddings))
    return similarities


def load_official(folders: dict[str, Path], device: str = "cpu"):
    """``load_model`` of evaluate.py (``--no-cuda``): the classifier, its tokenizer, LaBSE."""
    from sentence_transformers import SentenceTransformer
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    style_model = AutoModelForSequenceClassification.from_pretrained(folders["sta"]).to(device)
    style_tokenizer = AutoTokenizer.from_pretrained(folders["sta"])
    meaning_model = SentenceTransformer(str(folders["sim"]), device=device)
    return style_model, style_tokenizer, meaning_model


def official_scores(loaded, original_texts: list[str], rewritten_texts: list[str], references: list[str],
                    batch_size: int = 32) -> dict[str, np.ndarray]:
    """``evaluate_style_transfer(..., style_target_label=0)`` of evaluate.py, per sentence."""
    from sacrebleu import CHRF

    style_model, style_tokenizer, meaning_model = loaded
    accuracy = classify_texts(style_model, style_tokenizer, rewritten_texts, prepare_target_label(style_model, 0),
                              batch_size=batch_size, desc="Style")
    similarity = evaluate_sim(meaning_model, original_texts, rewritten_texts, batch_size=batch_size)
    chrf = CHRF()
    result = {"STA": accuracy, "SIM": similarity,
              "CHRF": np.array([chrf.sentence_score(hypothesis=h, references=[r]).score / 100
                                for h, r in zip(rewritten_texts, references)], dtype=np.float64)}
    result["J"] = result["STA"] * result["SIM"] * result["CHRF"]
    return {k: np.asarray(v, dtype=np.float64) for k, v in result.items()}


# ----------------------------------------------------------------------------- the preset


def preset_for(folders: dict[str, Path], pool: ModelPool):
    return get_preset("textdetox2024", pool=pool, models={role: str(f) for role, f in folders.items()})


def load_preset(preset) -> None:
    pool = preset.get_pool()
    for role, kind in preset.model_kinds.items():
        pool.get(preset.models[role], kind, role, preset.sources.get(role))


def tqdm_progress():
    """A ``progress(step, done, total)`` callback drawing one tqdm bar per step."""
    bars: dict[str, tqdm] = {}

    def progress(step: str, done: int, total: int) -> None:
        bar = bars.get(step)
        if bar is None:
            bar = bars[step] = tqdm(total=total, desc=f"preset {step}", unit="text")
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return progress


AXES = (("sta", "STA"), ("sim", "SIM"), ("fl", "CHRF"), ("j", "J"))


def differences(frame, official: dict[str, np.ndarray]) -> dict[str, float]:
    """Largest absolute per-sentence difference of each axis (preset column, official key)."""
    return {axis: float(np.abs(frame[axis].to_numpy(dtype=np.float64) - official[key]).max())
            for axis, key in AXES}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows-per-language", type=int, default=100, metavar="N",
                        help="first N test inputs of each of the 9 languages (default: 100)")
    parser.add_argument("--sta-size", choices=sorted(XLMR_SIZES), default="base",
                        help="size of the STA classifier: 'base' is the real checkpoint's config (default), "
                             "'large' is XLM-R large")
    parser.add_argument("--keep", metavar="DIR",
                        help="build the models here and keep them (default: a temporary folder)")
    args = parser.parse_args()
    try:
        test, dev = load_inputs("test"), load_inputs("dev")
    except (data.DataMissingError, data.DetoxInputError) as err:
        print(f"{err}\n(fetch the data first: .venv/bin/python -m detox_core fetch-data)")
        return 1
    inputs, langs = pick_rows(test, args.rows_per_language)
    outputs = [rewrite(t) for t in inputs]
    references = list(inputs)  # no public test references: the input is the pseudo-reference
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-td2024-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        sample = pick_rows(dev, 8)[0]  # the head's spread is set on dev inputs, not on the scored ones
        folders = build_models(work, dev["toxic_comment"].tolist() + test["toxic_comment"].tolist(), sample,
                               args.sta_size)
        sta_arch = XLMR_SIZES[args.sta_size]
        print(f"models ready in {time.perf_counter() - t:.0f} s (built, or reused from --keep), random weights, "
              f"seeds 0/1:\n"
              f"  STA  XLMRobertaForSequenceClassification ({args.sta_size}: hidden {sta_arch['hidden_size']}, "
              f"{sta_arch['num_hidden_layers']} layers, vocab 250,002), labels {LABELS}\n"
              f"  SIM  LaBSE layout (BERT-base, vocab 501,153) + CLS pooling + Dense 768->768 tanh + Normalize\n"
              f"  tokenizers trained on the 2024 inputs: {_vocab(folders['sta'])} (XLM-R Unigram) and "
              f"{_vocab(folders['sim'])} (BERT WordPiece) pieces, fewer than the embedding rows")
        n_lang = len(set(langs))
        print(f"rows: {len(inputs)} ({n_lang} languages x {args.rows_per_language}, file order); outputs: the input "
              f"minus its longest word; references: the input itself (pseudo-references, the test split has none "
              f"public); torch threads: {torch.get_num_threads()}\n")

        # Import what both sides load with, so that neither side's loading time holds the imports.
        import sentence_transformers  # noqa: F401
        from transformers import XLMRobertaForSequenceClassification  # noqa: F401

        # ---- the official procedure
        t = time.perf_counter()
        loaded = load_official(folders)
        official_load = time.perf_counter() - t
        t = time.perf_counter()
        official = official_scores(loaded, inputs, outputs, references)
        official_time = time.perf_counter() - t
        del loaded
        gc.collect()

        # ---- the preset, as the app runs it
        pool = ModelPool(device="cpu")
        preset = preset_for(folders, pool)
        t = time.perf_counter()
        load_preset(preset)
        preset_load = time.perf_counter() - t
        t = time.perf_counter()
        frame = preset.score(inputs, outputs, [[r] for r in references], progress=tqdm_progress())
        preset_time = time.perf_counter() - t
        del preset, pool
        gc.collect()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    diffs = differences(frame, official)
    print(f"\nrows scored: {len(inputs)}")
    print(f"{'':<22}{'loading':>10}{'scoring':>10}{'pairs/s':>10}")
    print(f"{'official evaluate.py':<22}{official_load:9.1f}s{official_time:9.1f}s{len(inputs) / official_time:10.1f}")
    print(f"{'preset (model pool)':<22}{preset_load:9.1f}s{preset_time:9.1f}s{len(inputs) / preset_time:10.1f}")
    print(f"scoring speed-up (official / preset): {official_time / preset_time:.2f}x")
    print(f"\n{'axis':<5}{'official mean':>14}{'preset mean':>13}{'min':>8}{'max':>8}{'max |diff|':>12}")
    for axis, key in AXES:
        values = official[key]
        print(f"{axis.upper():<5}{values.mean():14.4f}{frame[axis].mean():13.4f}{values.min():8.3f}{values.max():8.3f}"
              f"{diffs[axis]:12.2e}")
    worst = max(diffs.values())
    print(f"\nlargest difference: {worst:.2e} (target <= {TOLERANCE:g}): {'OK' if worst <= TOLERANCE else 'FAILED'}")
    print("(FL and J use pseudo-references: chrF of the output against its own input.)")
    return 0 if worst <= TOLERANCE else 2


def _vocab(folder: Path) -> str:
    from transformers import AutoTokenizer

    return f"{len(AutoTokenizer.from_pretrained(folder)):,}"  # sentence-transformers keep it at the top too


if __name__ == "__main__":
    sys.exit(main())
