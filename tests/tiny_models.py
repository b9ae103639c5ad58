"""Tiny transformer models built and saved by the tests themselves.

A WordPiece vocabulary trained on a few hundred sentences and 2-layer BERTs with the
architectures of the real metric models, saved with ``save_pretrained`` so the presets
load them through the same ``from_pretrained`` path as the real ones.
"""

from __future__ import annotations

import random
from pathlib import Path

SEED_SENTENCES = [
    "ты дебил, иди отсюда", "ты неправ, иди отсюда", "этот мудак опять врёт", "этот человек опять врёт",
    "какая хрень эта ваша новость", "какая ерунда эта ваша новость", "ну и погода сегодня", "заткнись уже, идиот",
    "помолчи уже, пожалуйста", "сука как же надоело", "как же надоело", "хорошая работа, спасибо",
    "где этот герой был до этого со своими доказательствами", "из за таких людей мы и страдаем",
]


def corpus_sentences(n: int = 300, seed: int = 0) -> list[str]:
    """A few hundred sentences: the seeds and shuffles of their words."""
    rng = random.Random(seed)
    vocab = sorted({w for s in SEED_SENTENCES for w in s.replace(",", " ,").split()})
    out = list(SEED_SENTENCES)
    while len(out) < n:
        out.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(3, 12))))
    return out


def build_tokenizer(folder: Path):
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertTokenizerFast

    wp = BertWordPieceTokenizer(lowercase=True, strip_accents=False)
    wp.train_from_iterator(corpus_sentences(), vocab_size=400, min_frequency=1)
    tok = BertTokenizerFast(tokenizer_object=wp._tokenizer, model_max_length=128,
                            unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]", cls_token="[CLS]", mask_token="[MASK]")
    tok.save_pretrained(folder)
    return tok


def _config(tok, **extra):
    from transformers import BertConfig

    return BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                      intermediate_size=64, max_position_embeddings=128, **extra)


def build_classifier(folder: Path, labels: dict[int, str], seed: int) -> Path:
    import torch
    from transformers import BertForSequenceClassification

    tok = build_tokenizer(folder)
    torch.manual_seed(seed)
    cfg = _config(tok, num_labels=len(labels), id2label=labels, label2id={v: k for k, v in labels.items()})
    model = BertForSequenceClassification(cfg).eval()
    # Random init gives near-uniform softmax; spread the classifier so scores vary.
    with torch.no_grad():
        model.classifier.weight.mul_(40)
    model.save_pretrained(folder)
    return folder


def build_encoder(folder: Path, seed: int) -> Path:
    import torch
    from transformers import BertModel

    tok = build_tokenizer(folder)
    torch.manual_seed(seed)
    BertModel(_config(tok), add_pooling_layer=True).eval().save_pretrained(folder)
    return folder


def build_sentence_transformer(folder: Path, encoder: Path) -> Path:
    from sentence_transformers import SentenceTransformer

    try:
        from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
    except ImportError:  # older sentence-transformers
        from sentence_transformers.models import Normalize, Pooling, Transformer

    word = Transformer(str(encoder), max_seq_length=128)
    pooling = Pooling(word.get_embedding_dimension(), pooling_mode="cls")
    SentenceTransformer(modules=[word, pooling, Normalize()], device="cpu").save(str(folder))
    return folder


def build_all(root: Path) -> dict[str, Path]:
    """All tiny models under ``root``: sta, fl (classifiers), sim (encoder), st."""
    root.mkdir(parents=True, exist_ok=True)
    out = {
        "sta": build_classifier(root / "sta", {0: "neutral", 1: "toxic"}, seed=1),
        "fl": build_classifier(root / "fl", {0: "corrupted", 1: "clean"}, seed=2),
        "sim": build_encoder(root / "sim", seed=3),
    }
    out["st"] = build_sentence_transformer(root / "st", out["sim"])
    return out
