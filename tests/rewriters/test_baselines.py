"""The Delete baseline and the seq2seq rewriter (on a tiny T5 built here)."""

from __future__ import annotations

import pytest

from detox_core.rewriters.baselines import delete_baseline, Seq2SeqDetoxifier
from detox_core.models import ModelPool

LEX = frozenset({"дебил", "сука", "нахрен", "блять"})


@pytest.mark.parametrize("text, expected", [
    ("ты дебил, иди отсюда", "ты, иди отсюда"),
    ("ну ты и дебил, сука", "ну ты и"),
    ("Сука, как же надоело", "Как же надоело"),
    ("иди нахрен !", "иди!"),
    ("ничего токсичного", "ничего токсичного"),
    ("блять", ""),
    ("Ёлки, ДЕБИЛ опять", "Ёлки, опять"),
])
def test_delete_baseline(text, expected):
    assert delete_baseline(text, LEX) == expected


MANY = frozenset({"идиоты", "moron", "fuck", "idiota", "puta", "мудак", "זונה", "傻逼", "хуй", "пидарасы", "गधा", "حمار"})


@pytest.mark.parametrize("text, lang, expected", [
    ("Shut up, moron!", "en", "Shut up!"),  # no separator left before the closing mark
    ('He said "fuck" twice', "en", "He said twice"),  # no empty quotes
    ('"a" "b", fuck', "en", '"a" "b"'),  # quotes around kept words stay
    ("¡Idiota! ¿Qué haces, puta?", "es", "¿Qué haces?"),  # Spanish opening marks with nothing left go
    ("Ты - мудак - и всё", "ru", "Ты - и всё"),  # one dash, not two
    ("идиоты безголовые, ...бог видит", "ru", "безголовые,...бог видит"),  # the writer's ellipsis stays
    ("\u200fזונה\u200f אתה", "he", "אתה"),  # no direction mark left alone
    # A Han character in a Russian sentence does not make it Chinese: no word cut letter by letter.
    ("застрахуй машину, пидарасы 卐", "ru", "застрахуй машину, 卐"),
    ("滚开，傻逼！", "zh", "滚开！"),
    # The same word typed with Arabic short vowels, or Hindi "ड़" as one code point or two.
    ("اسكت يا حِمَار", "ar", "اسكت يا"),
    ("तू गधा है", "hi", "तू है"),
])
def test_delete_baseline_tidies_every_script(text, lang, expected):
    assert delete_baseline(text, MANY, lang) == expected


def test_a_letter_typed_precomposed_or_not_is_the_same_word():
    from detox_core.text import lexicon_hits

    lexicon = frozenset({"\u0921\u093c\u0902\u0917"})  # ड़ंग written as two code points + anusvara
    assert lexicon_hits("\u095c\u0902\u0917 है", lexicon, "hi") == ["\u0921\u093c\u0902\u0917"]


def test_seq2seq_rewriter_through_the_pool(tmp_path):
    from transformers import T5Config, T5ForConditionalGeneration

    from tests.tiny_models import build_tokenizer

    tok = build_tokenizer(tmp_path)
    cfg = T5Config(vocab_size=len(tok), d_model=32, d_ff=64, num_layers=1, num_heads=2, d_kv=16,
                   decoder_start_token_id=tok.pad_token_id, pad_token_id=tok.pad_token_id, eos_token_id=tok.sep_token_id)
    T5ForConditionalGeneration(cfg).eval().save_pretrained(tmp_path)
    pool = ModelPool(device="cpu", backend="torch", model_map={"s-nlp/ruT5-base-detox": str(tmp_path)})
    rewriter = Seq2SeqDetoxifier("s-nlp/ruT5-base-detox", pool=pool, max_new_tokens=8)
    out = rewriter.rewrite(["ты дебил, иди отсюда", "ну и погода"])
    assert len(out) == 2 and all(isinstance(t, str) for t in out)
    assert out == rewriter.rewrite(["ты дебил, иди отсюда", "ну и погода"])  # greedy: reproducible
