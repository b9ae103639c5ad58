"""Loaders: what they return, and the message every bad input gets."""

from __future__ import annotations

import pandas as pd
import pytest

from detox_core import data
from detox_core import editions
from detox_core.data import (
    DetoxInputError,
    load_corpus,
    load_human_judgements,
    load_leaderboard,
    load_lexicon,
    load_submission,
)
from tests.conftest import TINY_TRAIN

HEADER = "index\ttoxic_comment\tneutral_comment1\tneutral_comment2\tneutral_comment3\n"


def err_of(fn, *args, **kwargs) -> DetoxInputError:
    with pytest.raises(DetoxInputError) as info:
        fn(*args, **kwargs)
    return info.value


# ------------------------------------------------------------------ corpus


def test_corpus_columns_references_and_quoting(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text(TINY_TRAIN, encoding="utf-8")
    df = load_corpus(path)
    assert list(df["pair_id"]) == [f"train-{i}" for i in range(5)]
    assert list(df["n_refs"]) == [2, 1, 3, 1, 1]
    assert df.loc[2, "neutral_comment3"] == "неинтересная новость"
    assert df.loc[1, "neutral_comment2"] == ""
    # RFC 4180 quoting: doubled quotes inside a quoted field.
    assert df.loc[4, "toxic_comment"] == 'цитата "дебилы" с кавычками'
    assert list(df["line"]) == [2, 3, 4, 5, 6]


def test_corpus_multiline_field_keeps_line_numbers(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(HEADER + '0\tа\t"две\nстроки"\t\t\n1\tб\tв\t\t\n', encoding="utf-8")
    df = load_corpus(path)
    assert df.loc[0, "neutral_comment1"] == "две\nстроки"
    assert list(df["line"]) == [2, 4]


def test_corpus_without_index_and_references(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("toxic_comment\nпервый\nвторой\n", encoding="utf-8")
    df = load_corpus(path, split="test")
    assert list(df["pair_id"]) == ["test-0", "test-1"]
    assert list(df["n_refs"]) == [0, 0]
    with pytest.raises(DetoxInputError, match="expected 1-3 neutral paraphrases"):
        load_corpus(path, require_references=True)


def test_corpus_crlf_and_bom(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_bytes("\ufefftoxic_comment\tneutral_comment1\r\nа\tб\r\n".encode("utf-8"))
    df = load_corpus(path)
    assert df.loc[0, "toxic_comment"] == "а" and df.loc[0, "neutral_comment1"] == "б"


def test_corpus_missing_column(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text("text\tneutral_comment1\nа\tб\n", encoding="utf-8")
    err = err_of(load_corpus, path)
    assert err.line == 1 and "toxic_comment" in str(err) and "'text'" in str(err)
    assert str(path) in str(err)


def test_corpus_wrong_field_count(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(HEADER + "0\tа\tб\t\t\n1\tв\tг\n", encoding="utf-8")
    err = err_of(load_corpus, path)
    assert err.line == 3 and "expected 5" in str(err) and "found 3" in str(err)


def test_corpus_duplicate_index(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(HEADER + "7\tа\tб\t\t\n8\tв\tг\t\t\n7\tд\tе\t\t\n", encoding="utf-8")
    err = err_of(load_corpus, path)
    assert err.line == 4 and err.column == "index" and "first used on line 2" in str(err)


def test_corpus_non_integer_index(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(HEADER + "x1\tа\tб\t\t\n", encoding="utf-8")
    err = err_of(load_corpus, path)
    assert err.line == 2 and err.column == "index"


def test_corpus_empty_toxic_sentence(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(HEADER + "0\tа\tб\t\t\n1\t  \tг\t\t\n", encoding="utf-8")
    err = err_of(load_corpus, path)
    assert err.line == 3 and err.column == "toxic_comment"


def test_corpus_unclosed_quote(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(HEADER + '0\t"а\tб\t\t\n1\tв\tг\t\t\n2\tд\tе\t\t\n', encoding="utf-8")
    err = err_of(load_corpus, path)
    assert err.line == 2 and "never closed" in str(err)


def test_corpus_quote_swallowing_separators(tmp_path):
    # The quote opened on line 2 closes on line 3, swallowing a whole record.
    path = tmp_path / "c.tsv"
    path.write_text(HEADER + '0\t"а\tб\t\t\n1\tв"\tг\t\t\n2\tд\tе\t\t\n', encoding="utf-8")
    err = err_of(load_corpus, path)
    assert err.line == 2 and "quote" in str(err)


def test_corpus_text_after_closing_quote(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(HEADER + '0\t"а"б\tв\t\t\n', encoding="utf-8")
    err = err_of(load_corpus, path)
    assert err.line == 2 and "broken quoting" in str(err) and err.column == 5  # the closing quote


def test_corpus_wrong_encoding(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_bytes((HEADER + "0\tа\tб\t\t\n1\tпривет\tг\t\t\n").encode("cp1251"))
    err = err_of(load_corpus, path)
    assert err.line == 1 or err.line == 2
    assert "UTF-8" in str(err) and "Windows-1251" in str(err)


def test_corpus_bad_byte_position(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_bytes(HEADER.encode() + "0\tаб".encode() + b"\xff" + "\tв\t\t\n".encode())
    err = err_of(load_corpus, path)
    assert (err.line, err.column) == (2, 5)


@pytest.mark.parametrize("content", [b"", b"   \n\n", b"\xef\xbb\xbf"])
def test_corpus_empty_file(tmp_path, content):
    path = tmp_path / "c.tsv"
    path.write_bytes(content)
    assert "empty" in str(err_of(load_corpus, path))


def test_corpus_header_only(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(HEADER, encoding="utf-8")
    assert "at least one row" in str(err_of(load_corpus, path))


def test_corpus_duplicate_header(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text("toxic_comment\ttoxic_comment\nа\tб\n", encoding="utf-8")
    err = err_of(load_corpus, path)
    assert err.line == 1 and err.column == 2 and "appears twice" in str(err)


def test_file_too_large(tmp_path, monkeypatch):
    path = tmp_path / "big.txt"
    path.write_bytes(b"x\n" * 2000)
    err = err_of(load_submission, path, max_bytes=1000)
    assert "larger than" in str(err)
    err = err_of(load_submission, b"x\n" * 2000, name="upload.txt", max_bytes=1000)
    assert "upload.txt" in str(err)


def test_missing_file(tmp_path):
    err = err_of(load_corpus, tmp_path / "nope.tsv")
    assert "file not found" in str(err)


def test_upload_bytes_use_given_name():
    df = load_corpus("toxic_comment\nа\n".encode(), name="mine.tsv", split="upload")
    assert list(df["pair_id"]) == ["upload-0"]
    err = err_of(load_corpus, b"text\n1\n", name="mine.tsv")
    assert str(err).startswith("mine.tsv, line 1")


# ------------------------------------------------------------------ submissions

INPUTS = ["ты дебил", "вот хрень", "сука надоело"]


def test_submission_text_one_per_line():
    df = load_submission("ты неправ\nвот ерунда\nнадоело\n".encode(), inputs=INPUTS, name="sub.txt")
    assert list(df["neutral_sentence"]) == ["ты неправ", "вот ерунда", "надоело"]
    assert list(df["toxic_sentence"]) == INPUTS
    assert list(df["line"]) == [1, 2, 3]


def test_submission_without_final_newline_and_crlf():
    df = load_submission("а\r\nб\r\nв".encode(), inputs=INPUTS, name="sub.txt")
    assert list(df["neutral_sentence"]) == ["а", "б", "в"]


def test_submission_wrong_line_count():
    err = err_of(load_submission, "а\nб\n".encode(), inputs=INPUTS, name="sub.txt")
    assert "expected 3 outputs" in str(err) and "found 2" in str(err) and "sub.txt" in str(err)
    err = err_of(load_submission, "а\nб\nв\nг\n".encode(), inputs=INPUTS, name="sub.txt")
    assert "found 4" in str(err)


def test_submission_shift_is_located():
    inputs = [f"предложение номер {w} про погоду и дебилов" for w in ("один", "два", "три", "четыре", "пять", "шесть")]
    outputs = [s.replace(" и дебилов", "") for s in inputs]
    del outputs[2]  # line 3 is missing: from line 3 on, outputs belong to the next input
    err = err_of(load_submission, ("\n".join(outputs) + "\n").encode(), inputs=inputs, name="sub.txt")
    assert err.line == 3 and "shifted from line 3" in str(err)


def test_submission_empty_lines_are_all_listed():
    err = err_of(load_submission, "а\n\n  \nг\n".encode(), inputs=[*INPUTS, "ещё"], name="sub.txt")
    assert err.line == 2 and "line(s) 2, 3" in str(err)


def test_submission_trailing_blank_lines_are_not_outputs():
    for tail in ("\n\n", "\n\n\n", "\r\n\r\n", "\n  \n"):
        df = load_submission(("а\nб\nв" + tail).encode(), inputs=INPUTS, name="sub.txt")
        assert list(df["neutral_sentence"]) == ["а", "б", "в"], repr(tail)
    tsv = "toxic_sentence\tneutral_sentence\n" + "".join(f"{t}\tвыход\n" for t in INPUTS) + "\n\n"
    assert len(load_submission(tsv.encode(), inputs=INPUTS, name="sub.tsv")) == 3


def test_submission_tsv_with_a_wrong_header_names_the_columns():
    # Header names of another format: said as missing columns, not as shifted outputs.
    tsv = "source\ttarget\n" + "".join(f"{t}\tвыход\n" for t in INPUTS)
    for name in ("sub.tsv", "sub.txt"):
        err = err_of(load_submission, tsv.encode(), inputs=INPUTS, name=name)
        assert err.line == 1 and "missing column" in str(err) and "neutral_sentence" in str(err), str(err)
        assert "'source'" in str(err) and "shifted" not in str(err)
    # Plain outputs that hold a tab are still plain outputs.
    df = load_submission("а\tб\nв\nг\n".encode(), inputs=INPUTS, name="sub.txt")
    assert df["neutral_sentence"].tolist() == ["а\tб", "в", "г"]


def test_submission_empty_file():
    assert "empty" in str(err_of(load_submission, b"", inputs=INPUTS, name="sub.txt"))


def test_submission_tsv():
    tsv = "toxic_sentence\tneutral_sentence\tlang\n" + "".join(f"{t}\tвыход {i}\tru\n" for i, t in enumerate(INPUTS))
    df = load_submission(tsv.encode(), inputs=INPUTS, name="sub.tsv")
    assert list(df["neutral_sentence"]) == ["выход 0", "выход 1", "выход 2"]
    assert list(df["lang"]) == ["ru"] * 3
    assert list(df["line"]) == [2, 3, 4]


def test_submission_tsv_inputs_must_match():
    tsv = "toxic_sentence\tneutral_sentence\n" + f"{INPUTS[0]}\tа\nдругое\tб\n{INPUTS[2]}\tв\n"
    err = err_of(load_submission, tsv.encode(), inputs=INPUTS, name="sub.tsv")
    assert err.line == 3 and err.column == "toxic_sentence"


def test_submission_tsv_missing_column():
    err = err_of(load_submission, "toxic_sentence\tlang\nа\tru\n".encode(), name="sub.tsv")
    assert err.line == 1 and "neutral_sentence" in str(err)


def test_submission_wrong_encoding():
    err = err_of(load_submission, "а\nб\nв\n".encode("cp1251"), inputs=INPUTS, name="sub.txt")
    assert err.line == 1 and err.column == 1 and "UTF-8" in str(err)


# ------------------------------------------------------------------ human judgements and leaderboard

HUMAN = (
    "original,method_output,fluency,non-toxicity,content,J,participant_name,neutral_sentence_reference,chrf\n"
    "ты дебил,ты неправ,1.0,1,1,1.0,team_a,ты не прав,0.5\n"
    "вот хрень,вот хрень,1.0,0,1,0.0,team_a,вот ерунда,0.7\n"
)


def test_human_judgements_alias_columns_and_extra_metrics():
    df = load_human_judgements(HUMAN.encode(), name="h.csv")
    assert list(df["toxic_sentence"]) == ["ты дебил", "вот хрень"]
    assert list(df["neutral_sentence"]) == ["ты неправ", "вот хрень"]
    assert list(df["non-toxicity"]) == [1.0, 0.0]
    assert df["chrf"].dtype.kind == "f" and df.loc[1, "chrf"] == pytest.approx(0.7)


def test_human_judgements_tsv_with_canonical_names():
    tsv = "toxic_sentence\tneutral_sentence\tparticipant_name\tnon-toxicity\tcontent\tfluency\tJ\nа\tб\tt\t1\t1\t0.5\t0.5\n"
    df = load_human_judgements(tsv.encode(), name="h.tsv")
    assert df.loc[0, "fluency"] == 0.5 and df.loc[0, "neutral_sentence_reference"] == ""


def test_human_judgements_bad_label():
    bad = HUMAN.replace("1.0,0,1,0.0", "1.0,yes,1,0.0")
    err = err_of(load_human_judgements, bad.encode(), name="h.csv")
    assert (err.line, err.column) == (3, "non-toxicity")
    bad = HUMAN.replace("1.0,1,1,1.0", "1.0,1,2,1.0")
    err = err_of(load_human_judgements, bad.encode(), name="h.csv")
    assert (err.line, err.column) == (2, "content") and "[0, 1]" in str(err)


def test_human_judgements_missing_column():
    err = err_of(load_human_judgements, HUMAN.replace("participant_name", "team").encode(), name="h.csv")
    assert "participant_name" in str(err) and err.line == 1


def test_leaderboard_and_bad_value():
    text = "team,method,sta_auto,j_human\nbaseline,Delete,0.56,0.16\nx,y,,0.2\n"
    df = load_leaderboard(text.encode(), name="lb.csv")
    assert df.loc[0, "sta_auto"] == 0.56 and pd.isna(df.loc[1, "sta_auto"])
    err = err_of(load_leaderboard, text.replace("0.2", "1.7").encode(), name="lb.csv")
    assert (err.line, err.column) == (3, "j_human")
    assert "score column" in str(err_of(load_leaderboard, b"team,method\na,b\n", name="lb.csv"))


def test_lexicon_is_normalised():
    lex = load_lexicon("Ёбаный\nдебил\n\nдва слова\n".encode(), name="lex.txt")
    assert lex == frozenset({"ебаный", "дебил"})


# ------------------------------------------------------------------ the real RUSSE-2022 files


def test_real_splits_load_with_references(real_data):
    root = real_data.parent
    train = editions.load_dataset("russe2022", ["train"], root)
    dev = editions.load_dataset("russe2022", ["dev"], root)
    test = editions.load_dataset("russe2022", ["test"], root)
    assert (len(train), len(dev), len(test)) == (6948, 800, 875)
    assert train["n_refs"].between(1, 3).all() and dev["n_refs"].between(1, 3).all()
    assert (test["n_refs"] == 1).all()
    assert train["pair_id"].is_unique
    assert set(train["n_refs"]) == {1, 2, 3}


def test_real_outputs_match_test_inputs(real_data):
    inputs = load_corpus(real_data / "test.tsv")["toxic_comment"].tolist()
    for path in sorted((real_data / "outputs").glob("*_test.txt")):
        sub = load_submission(path, inputs=inputs)
        assert len(sub) == 875, path.name


def test_real_human_eval_and_leaderboard(real_data):
    human = load_human_judgements(real_data / "human_eval_test.csv")
    assert len(human) == 2625 and set(human["participant_name"]) == {"anton_alexandrovich", "barracudas", "ekaterina_totmina"}
    assert ((human["J"] - human["non-toxicity"] * human["content"] * human["fluency"]).abs() < 1e-9).all()
    lb = load_leaderboard(real_data / "leaderboard_published.csv")
    assert len(lb) == 15 and lb["j_human"].notna().all()


def test_dataset_missing_says_how_to_fetch(tmp_path):
    with pytest.raises(data.DataMissingError, match="fetch-data"):
        editions.load_dataset("russe2022", ["train"], tmp_path)
    assert editions.EDITIONS["russe2022"].available_splits(tmp_path) == []


def test_submission_reports_every_problem_at_once():
    err = err_of(load_submission, "а\n\nв\nг\n".encode(), inputs=INPUTS, name="sub.txt")
    assert "2 problems" in str(err) and "expected 3 outputs" in str(err) and "empty output(s) on line(s) 2" in str(err)


def test_judgements_metric_column_with_inf_or_a_text_cell_is_refused_with_its_place():
    head = "toxic_sentence\tneutral_sentence\tparticipant_name\tnon-toxicity\tcontent\tfluency\tJ\tmy_metric\n"
    rows = [f"ты дебил {k}\tты неправ {k}\tsys\t1\t1\t1\t1\t0.{k}\n" for k in range(5)]
    good = data.load_human_judgements((head + "".join(rows)).encode(), name="h.tsv")
    assert good["my_metric"].dtype.kind == "f"
    for bad_value, message in (("inf", "expected a finite number, found 'inf'"),
                               ("0,7", "expected a number in this metric column, found '0,7'")):
        broken = rows[:3] + [rows[3].replace("\t0.3\n", f"\t{bad_value}\n")] + rows[4:]
        with pytest.raises(DetoxInputError, match=f"h.tsv, line 5, column 'my_metric': {message}"):
            data.load_human_judgements((head + "".join(broken)).encode(), name="h.tsv")
    notes = rows[:2] + [r.replace("\t0.", "\tnote ") for r in rows[2:]]
    assert data.load_human_judgements((head + "".join(notes)).encode(), name="h.tsv")["my_metric"].dtype.kind != "f"
