"""The multilingual formats: inputs with languages, CodaLab submissions matched by text and
language, partial submissions, zips, and every problem named with its line."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from detox_core.config import SHARED_MIRRORS
from detox_core.data.multilingual import load_multilingual_inputs, load_multilingual_submission
from detox_core.errors import DetoxInputError

MIRROR = SHARED_MIRRORS / "textdetox"
INPUTS = ("toxic_sentence\tlang\n"
          "ты дурак\tru\n"
          "you are an idiot\ten\n"
          "أنت غبي\tar\n"
          "你是个白痴\tzh\n"
          "shut up, moron\ten\n")


def inputs():
    return load_multilingual_inputs(INPUTS.encode(), name="test_inputs.tsv", split="test")


def tsv(rows: list[tuple[str, str, str]]) -> bytes:
    return ("toxic_sentence\tneutral_sentence\tlang\n" + "".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows)).encode()


FULL = [("ты дурак", "ты неправ", "ru"), ("you are an idiot", "you are wrong", "en"), ("أنت غبي", "أنت مخطئ", "ar"),
        ("你是个白痴", "你错了", "zh"), ("shut up, moron", "please be quiet", "en")]


def test_inputs_carry_their_language_and_a_per_language_id():
    frame = inputs()
    assert frame["lang"].tolist() == ["ru", "en", "ar", "zh", "en"]
    assert frame["pair_id"].tolist() == ["test-ru-0", "test-en-0", "test-ar-0", "test-zh-0", "test-en-1"]
    assert frame["line"].tolist() == [2, 3, 4, 5, 6] and (frame["n_refs"] == 0).all()
    hub = load_multilingual_inputs("toxic_sentence\tneutral_sentence\tlang\nты дурак\tты неправ\tru\n".encode(),
                                   name="dev.tsv")
    assert hub["neutral_comment1"].tolist() == ["ты неправ"] and hub["n_refs"].tolist() == [1]


@pytest.mark.parametrize("text, where, message", [
    ("toxic_sentence\tlang\nты дурак\tru\nhello\txx\n", "line 3, column 'lang'", "unknown language code 'xx'"),
    ("toxic_sentence\tlang\n \tru\n", "line 2, column 'toxic_sentence'", "empty"),
    ("toxic_sentence\tlang\nты дурак\tru\nты дурак \tru\n", "line 3", "the same Russian input twice (first on line 2)"),
    ("toxic_sentence\tlanguage\nты дурак\tru\n", "line 1", "missing column(s) 'lang'"),
])
def test_bad_inputs_are_named_with_their_line(text, where, message):
    with pytest.raises(DetoxInputError) as err:
        load_multilingual_inputs(text.encode(), name="in.tsv")
    assert f"in.tsv, {where}" in str(err.value) and message in str(err.value)


def test_rows_are_matched_by_text_and_language_not_by_position():
    shuffled = [FULL[3], FULL[4], FULL[0], FULL[2], FULL[1]]
    sub = load_multilingual_submission(tsv(shuffled), inputs(), name="sub.tsv")
    assert not sub.partial and sub.describe() == "all 4 languages"
    assert sub.frame["neutral_sentence"].tolist() == [o for _, o, _ in FULL]  # back in the inputs' order
    assert sub.frame["line"].tolist() == [4, 6, 5, 2, 3] and sub.frame["input_line"].tolist() == [2, 3, 4, 5, 6]


def test_a_wrong_language_code_and_a_missing_row_are_both_named():
    rows = [FULL[0], ("you are an idiot", "you are wrong", "EN"), ("أنت غبي", "أنت مخطئ", "arb"), FULL[3]]
    with pytest.raises(DetoxInputError) as err:
        load_multilingual_submission(tsv(rows), inputs(), name="sub.tsv")
    message = str(err.value)
    assert message.startswith("sub.tsv, line 4: 2 problems")
    assert "1 row(s) in language(s) this split does not have, on line(s) 4: 'arb' is no language code" in message
    # The English row 'shut up, moron' (input line 6) has no row; upper-case EN is accepted.
    assert "1 input(s) of the answered languages have no row: input line(s) 6 of the split" in message
    assert "'shut up, moron'" in message


def test_a_submission_of_some_languages_is_accepted_and_marked_partial():
    sub = load_multilingual_submission(tsv([FULL[1], FULL[4], FULL[3]]), inputs(), name="sub.tsv")
    assert sub.partial and sub.languages == ("en", "zh") and sub.missing_languages == ("ru", "ar")
    assert sub.describe() == "partial: 2 of 4 languages (en, zh); not answered: ru, ar"
    assert sub.frame["lang"].tolist() == ["en", "zh", "en"]


def test_every_other_problem_is_collected_with_its_line():
    rows = [FULL[0], ("you are an idiot", " ", "en"), ("not an input", "x", "en"), FULL[0], FULL[2], FULL[3], FULL[4]]
    with pytest.raises(DetoxInputError) as err:
        load_multilingual_submission(tsv(rows), inputs(), name="sub.tsv")
    message = str(err.value)
    assert "1 empty output(s) on line(s) 3" in message
    assert "1 row(s) that are not inputs of this split, on line(s) 4 (first: English 'not an input')" in message
    assert "1 input(s) answered twice, on line(s) 5 (line 5 repeats line 2)" in message


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_a_zip_holding_one_tsv_is_read_like_codalab_did():
    sub = load_multilingual_submission(zipped({"submission.tsv": tsv(FULL)}), inputs(), name="team.zip")
    assert len(sub.frame) == 5
    with pytest.raises(DetoxInputError, match="team.zip: expected a zip holding one .tsv file, found a.tsv, b.tsv"):
        load_multilingual_submission(zipped({"a.tsv": tsv(FULL), "b.tsv": tsv(FULL)}), inputs(), name="team.zip")
    with pytest.raises(DetoxInputError, match="team.zip: the file is named .zip but is not a zip archive"):
        load_multilingual_submission(tsv(FULL), inputs(), name="team.zip")
    with pytest.raises(DetoxInputError, match=r"team.zip/sub.tsv, line 3: 1 empty output"):
        load_multilingual_submission(zipped({"sub.tsv": tsv([FULL[0], (FULL[1][0], "", "en"), *FULL[2:]])}),
                                     inputs(), name="team.zip")


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no offline mirror of the TextDetox files beside the project")
@pytest.mark.parametrize("rel, per_language", [
    ("textdetox2024/dev_inputs.tsv", {**dict.fromkeys("am ar de en es hi ru uk zh".split(), 400)}),
    ("textdetox2024/test_inputs.tsv", {**dict.fromkeys("am ar de en es hi ru uk zh".split(), 600)}),
    ("textdetox2025/dev_inputs.tsv", {**dict.fromkeys("am ar de en es hi ru uk zh".split(), 600),
                                      **dict.fromkeys("fr he hin it ja tt".split(), 100)}),
    ("textdetox2025/test_inputs.tsv", {**dict.fromkeys("am ar de en es hi ru uk zh".split(), 400)}),
])
def test_the_mirrors_inputs_load_with_the_counts_of_its_readme(rel, per_language):
    frame = load_multilingual_inputs(MIRROR / rel)
    assert frame["lang"].value_counts().to_dict() == per_language


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no offline mirror of the TextDetox files beside the project")
def test_the_official_sample_submission_validates_against_its_split():
    dev = load_multilingual_inputs(MIRROR / "textdetox2024" / "dev_inputs.tsv", split="dev")
    sub = load_multilingual_submission(Path(MIRROR / "textdetox2024" / "outputs" / "duplicate_dev.tsv"), dev)
    assert not sub.partial and len(sub.frame) == 3600
    assert (sub.frame["neutral_sentence"] == sub.frame["toxic_sentence"].str.strip()).all()  # the Duplicate baseline


def test_a_zip_bomb_is_refused_before_it_costs_memory():
    """A 70 KB zip of 7 million short rows used to take 2.5 GB and 30 s to be refused; now
    the file's lines are counted before anything is split or parsed."""
    import resource

    body = b"toxic_sentence\tneutral_sentence\tlang\n" + b"x\ty\ten\n" * 7_000_000
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("s.tsv", body)
    bomb = buffer.getvalue()
    del body
    assert len(bomb) < 200_000
    peak0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(DetoxInputError, match=r"bomb.zip/s.tsv: the file has 7,000,001 lines; at most 1,021 are read"):
        load_multilingual_submission(bomb, inputs(), name="bomb.zip")
    # ru_maxrss only grows: a peak far above the process's one says the parse ran.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak0 < 400 * 1024


def test_a_zip_with_too_many_entries_or_a_lying_size_is_refused():
    from detox_core.data.io import MAX_ZIP_MEMBERS

    many = zipped({f"f{k}.txt": b"x" for k in range(MAX_ZIP_MEMBERS + 1)})
    with pytest.raises(DetoxInputError, match=f"holds {MAX_ZIP_MEMBERS + 1} entries"):
        load_multilingual_submission(many, inputs(), name="many.zip")
    # A member whose real size is larger than the size the archive declares: the CRC or
    # the size check stops it, with a message, not an exception.
    good = zipped({"s.tsv": tsv(FULL)})
    head = good.find(b"PK\x01\x02")  # the central directory's record: its declared size
    forged = bytearray(good)
    size_at = head + 24
    forged[size_at:size_at + 4] = (8).to_bytes(4, "little")
    with pytest.raises(DetoxInputError, match="team.zip"):
        load_multilingual_submission(bytes(forged), inputs(), name="team.zip")


def test_a_plain_submission_far_longer_than_its_inputs_is_refused_before_splitting():
    from detox_core.data.formats import load_submission

    with pytest.raises(DetoxInputError, match=r"x.txt: the file has 5,000,000 lines; at most 1,012 are read"):
        load_submission(b"a\n" * 5_000_000, inputs=["i"] * 3, name="x.txt")


def test_a_plain_text_submission_in_a_zip_is_read_too():
    from detox_core.data.formats import load_submission

    frame = load_submission(zipped({"answer.txt": "один\nдва\n".encode()}), inputs=["a", "b"], name="team.zip")
    assert list(frame["neutral_sentence"]) == ["один", "два"]


def test_an_output_over_the_per_text_cap_is_named_with_its_line():
    from detox_core.limits import MAX_OUTPUT_CHARS

    rows = [*FULL[:2], ("أنت غبي", "م" * (MAX_OUTPUT_CHARS + 10), "ar"), *FULL[3:]]
    with pytest.raises(DetoxInputError, match=r"sub.tsv, line 4, column 'neutral_sentence': an output of 5,010"):
        load_multilingual_submission(tsv(rows), inputs(), name="sub.tsv")


def test_a_plain_file_of_outputs_is_told_to_bring_the_tsv_not_broken_quoting():
    """One output per line (RUSSE-2022's format) on a multilingual edition: the file's first
    line is named as not the header this edition needs, with the header; the quotes of an
    output further down are not reported as broken TSV quoting."""
    plain = '\n'.join(["you are wrong", "ты неправ", 'he said "stop', "أنت مخطئ"]).encode()
    with pytest.raises(DetoxInputError) as err:
        load_multilingual_submission(plain, inputs(), name="outputs.txt")
    message = str(err.value)
    assert message.startswith("outputs.txt, line 1: this edition takes a TSV with a header naming its columns, "
                              "toxic_sentence, neutral_sentence and lang"), message
    assert "'you are wrong'" in message and "RUSSE-2022's format" in message and "quoting" not in message
    # A header with some of the columns still names what is missing.
    with pytest.raises(DetoxInputError, match=r"missing column\(s\) 'lang'"):
        load_multilingual_submission("toxic_sentence\tneutral_sentence\nты дурак\tты неправ\n".encode(), inputs(),
                                     name="two.tsv")
