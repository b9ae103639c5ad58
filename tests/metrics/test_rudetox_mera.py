"""The rudetox-mera preset equals MERA's published ruDetox procedure on tiny models, and
its calibrators are fitted, saved as JSON, loaded and applied without any pickle.

The official procedure below is written from MERA-Evaluation/MERA
``humanbenchmarks/ruDetox/eval.py`` (``classify_texts``, ``prepare_target_label``,
``evaluate_style_transfer`` with ``style_target_label=0``, ``meaning_target_label=
"paraphrase"``, ``cola_target_label=1``, ``bidirectional=False``; calibrators applied as
``IsotonicRegression.predict(x[:, np.newaxis])``), with transformers directly as that code
does: batches of 32 padded together, ``truncation=True, max_length=512``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from detox_core.errors import DetoxInputError
from detox_core.calibration import fitted as fitted_calibration
from detox_core.metrics import get_preset, preset_class
from detox_core.models import ModelPool
from tests.tiny_models import _config as tiny_config
from tests.tiny_models import build_classifier, build_tokenizer, corpus_sentences

INPUTS = ["ты дебил, иди отсюда", "этот мудак опять врёт", "какая хрень эта ваша новость", "заткнись уже, идиот",
          "сука как же надоело", "где этот герой был до этого со своими доказательствами"]
# Surrounding spaces: the official code strips its predictions.
OUTPUTS = ["ты неправ, иди отсюда ", "этот человек опять врёт", " какая ерунда эта ваша новость",
           "помолчи уже, пожалуйста", "как же надоело", "где этот герой был до этого"]


def build_roberta_classifier(folder: Path, labels: dict[int, str], seed: int) -> Path:
    """A 2-layer RoBERTa sequence classifier with a byte-level BPE tokenizer (the
    architecture of ruRoberta-large-RuCoLa), saved with save_pretrained."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from tokenizers.processors import RobertaProcessing
    from transformers import RobertaConfig, RobertaForSequenceClassification, RobertaTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(corpus_sentences(), vocab_size=600, min_frequency=1,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bpe._tokenizer.post_processor = RobertaProcessing(("</s>", bpe.token_to_id("</s>")), ("<s>", bpe.token_to_id("<s>")))
    tok = RobertaTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                               cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
                               model_max_length=128)
    tok.save_pretrained(folder)
    torch.manual_seed(seed)
    cfg = RobertaConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=130, pad_token_id=1, bos_token_id=0,
                        eos_token_id=2, num_labels=len(labels), id2label=labels,
                        label2id={v: k for k, v in labels.items()}, initializer_range=0.2)
    RobertaForSequenceClassification(cfg).eval().save_pretrained(folder)
    return folder


def build_pair_classifier(folder: Path, labels: dict[int, str], seed: int) -> Path:
    """A 2-layer BERT sentence-pair classifier (the layout of the RuBERT paraphrase model)
    with a wide random init, so its probabilities vary between pairs."""
    import torch
    from transformers import BertForSequenceClassification

    tok = build_tokenizer(folder)
    torch.manual_seed(seed)
    cfg = tiny_config(tok, num_labels=len(labels), id2label=labels, label2id={v: k for k, v in labels.items()},
                      initializer_range=0.2)
    BertForSequenceClassification(cfg).eval().save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def mera_models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("mera")
    return {
        "sta": build_classifier(root / "sta", {0: "neutral", 1: "toxic"}, seed=11),
        # "paraphrase" first: the preset must look the label up, not assume index 1.
        "sim": build_pair_classifier(root / "sim", {0: "paraphrase", 1: "not_paraphrase"}, seed=12),
        "fl": build_roberta_classifier(root / "fl", {0: "unacceptable", 1: "acceptable"}, seed=13),
    }


# ----------------------------------------------------------------- the official code, restated


def prepare_target_label(model, target_label):
    if target_label in model.config.id2label:
        pass
    elif target_label in model.config.label2id:
        target_label = model.config.label2id.get(target_label)
    elif str(target_label).isnumeric() and int(target_label) in model.config.id2label:
        target_label = int(target_label)
    else:
        raise ValueError(f'target_label "{target_label}" not in model labels or ids: {model.config.id2label}.')
    return target_label


def classify_texts(model, tokenizer, texts, second_texts=None, target_label=None, batch_size=32):
    import torch

    target_label = prepare_target_label(model, target_label)
    res = []
    for i in range(0, len(texts), batch_size):
        inputs = [texts[i:i + batch_size]]
        if second_texts is not None:
            inputs.append(second_texts[i:i + batch_size])
        inputs = tokenizer(*inputs, return_tensors="pt", padding=True, truncation=True, max_length=512)
        with torch.no_grad():
            logits = model(**inputs).logits
            preds = torch.softmax(logits, -1)[:, target_label] if logits.shape[-1] > 1 else torch.sigmoid(logits)[:, 0]
        res.append(preds.cpu().numpy())
    return np.concatenate(res)


def official(inputs, outputs, folders, calibrators=None) -> dict[str, np.ndarray]:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    def load(role):
        return (AutoModelForSequenceClassification.from_pretrained(folders[role]).eval(),
                AutoTokenizer.from_pretrained(folders[role]))

    preds = [o.strip() for o in outputs]  # run_evaluation: sentence.strip()
    accuracy = classify_texts(*load("sta"), preds, target_label=0)
    similarity = classify_texts(*load("sim"), list(inputs), preds, target_label="paraphrase")
    fluency = classify_texts(*load("fl"), preds, target_label=1)
    raw = {"sta": accuracy, "sim": similarity, "fl": fluency, "j": accuracy * similarity * fluency}
    if calibrators:
        accuracy = calibrators["sta"].predict(accuracy[:, np.newaxis])
        similarity = calibrators["sim"].predict(similarity[:, np.newaxis])
        fluency = calibrators["fl"].predict(fluency[:, np.newaxis])
    return {"raw": raw, "cal": {"sta": accuracy, "sim": similarity, "fl": fluency, "j": accuracy * similarity * fluency}}


def synthetic_judgements(seed: int = 0, n: int = 80):
    """Raw scores and human labels that rise with them (with noise)."""
    rng = np.random.default_rng(seed)
    raw = {a: rng.uniform(0, 1, n) for a in ("sta", "sim", "fl")}
    human = {a: (rng.uniform(0, 1, n) < raw[a] ** 2).astype(float) for a in raw}
    human["fl"] = np.round(human["fl"] * 2 * raw["fl"]) / 2  # three-point fluency (0, 0.5, 1)
    return raw, human


# ------------------------------------------------------------------------------------ tests


def test_raw_scores_equal_the_official_procedure(mera_models, tmp_path, monkeypatch):
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))  # no saved calibrators
    preset = get_preset("rudetox-mera", pool=ModelPool(device="cpu", backend="torch", batch_size=4),
                        models={r: str(p) for r, p in mera_models.items()})
    frame = preset.score(INPUTS, OUTPUTS, [[o.strip()] for o in OUTPUTS])
    ref = official(INPUTS, OUTPUTS, mera_models)["raw"]
    for axis in ("sta", "sim", "fl", "j"):
        np.testing.assert_allclose(frame[f"{axis}_raw"], ref[axis], atol=1e-5, err_msg=axis)
        np.testing.assert_allclose(frame[axis], ref[axis], atol=1e-5, err_msg=axis)  # no calibrator: raw
    assert frame["sim_raw"].std() > 1e-3 and frame["fl_raw"].std() > 1e-3  # the scores do vary
    np.testing.assert_allclose(frame["chrf"], 1.0)  # the stripped output is its own reference (0-1 scale)
    sig = frame.attrs["signature"]
    assert sig["preset"] == "rudetox-mera" and sig["calibrated"] is False
    assert sig["calibration"]["type"] == "none" and "no calibrator" in sig["calibration"]["note"]
    assert sig["models"]["sim"]["id"] == "s-nlp/rubert-base-cased-conversational-paraphrase-v1"


def test_calibrated_scores_equal_the_official_procedure(mera_models, tmp_path, monkeypatch):
    from sklearn.isotonic import IsotonicRegression

    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    raw, human = synthetic_judgements()
    # The official calibrators: scikit-learn isotonic regressions, as MERA's get_calibrator sets them.
    official_cals = {a: IsotonicRegression(increasing=True, y_min=0, y_max=1, out_of_bounds="clip").fit(raw[a], human[a])
                     for a in raw}
    cals = fitted_calibration.fit_set("rudetox-mera", raw, human, "isotonic", "synthetic judgements")
    path = fitted_calibration.save(cals, tmp_path / "cal.json")
    preset = get_preset("rudetox-mera", pool=ModelPool(device="cpu", backend="torch"),
                        models={r: str(p) for r, p in mera_models.items()}, calibrators=path)
    frame = preset.score(INPUTS, OUTPUTS)
    ref = official(INPUTS, OUTPUTS, mera_models, official_cals)
    for axis in ("sta", "sim", "fl", "j"):
        np.testing.assert_allclose(frame[axis], ref["cal"][axis], atol=1e-5, err_msg=axis)
        np.testing.assert_allclose(frame[f"{axis}_raw"], ref["raw"][axis], atol=1e-5, err_msg=axis)
    sig = frame.attrs["signature"]
    assert sig["calibrated"] is True and sig["calibration"]["sha256"] == cals.digest()
    assert sig["calibration"]["fitted_on"]["description"] == "synthetic judgements"
    assert sig["calibration"]["axes"]["sta"]["kind"] == "isotonic"
    off = preset.score(INPUTS, OUTPUTS, calibrated=False)
    np.testing.assert_allclose(off["j"], ref["raw"]["j"], atol=1e-5)
    assert off.attrs["signature"]["calibrated"] is False


def test_sim_model_without_a_paraphrase_label_is_refused(mera_models, tmp_path, monkeypatch):
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    other = build_classifier(tmp_path / "nli", {0: "entailment", 1: "contradiction"}, seed=5)
    preset = get_preset("rudetox-mera", pool=ModelPool(device="cpu", backend="torch"),
                        models={**{r: str(p) for r, p in mera_models.items()}, "sim": str(other)})
    with pytest.raises(DetoxInputError, match="paraphrase"):
        preset.score(INPUTS[:1], OUTPUTS[:1])


@pytest.mark.parametrize("kind", ["isotonic", "logistic"])
def test_calibrators_round_trip_as_json(kind, tmp_path, monkeypatch):
    from sklearn.isotonic import IsotonicRegression
    from sklearn.linear_model import LogisticRegression

    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    raw, human = synthetic_judgements(seed=3)
    cals = fitted_calibration.fit_set("rudetox-mera", raw, human, kind, "synthetic")
    assert not preset_class("rudetox-mera").has_calibration()
    path = fitted_calibration.save(cals)  # the file the app and the preset read
    assert path == fitted_calibration.saved_path("rudetox-mera") and path.suffix == ".json"
    assert preset_class("rudetox-mera").has_calibration()
    assert "synthetic" in preset_class("rudetox-mera").calibration_note()
    loaded = fitted_calibration.load_saved("rudetox-mera")
    assert loaded == cals and loaded.digest() == cals.digest()
    json.loads(path.read_text(encoding="utf-8"))  # plain JSON
    x = np.array([-0.5, 0.0, 0.13, 0.5, 0.77, 1.0, 1.5, np.nan])
    for axis in ("sta", "sim", "fl"):
        if kind == "isotonic":
            ref = IsotonicRegression(increasing=True, y_min=0, y_max=1, out_of_bounds="clip").fit(raw[axis], human[axis])
        else:
            ref = LogisticRegression(max_iter=1000).fit(raw[axis][:, None], (human[axis] >= 0.5).astype(int))
        got = loaded.axes[axis].predict(x)
        want = ref.predict(x[:-1, None]) if kind == "isotonic" else ref.predict_proba(x[:-1, None])[:, 1]
        np.testing.assert_allclose(got[:-1], want, atol=1e-9)
        assert np.isnan(got[-1])  # a missing score stays missing
    assert cals.fitted_on["n"] == 80 and len(cals.fitted_on["sha256"]) == 64


def test_bad_calibrator_files_are_refused(tmp_path):
    bad = tmp_path / "bad.json"
    for content, message in [("not json", "not JSON"), ('{"format": "x"}', "format"),
                             (json.dumps({"format": fitted_calibration.FORMAT, "axes": {"sta": {}}}), "axes"),
                             (json.dumps({"format": fitted_calibration.FORMAT, "axes": {
                                 a: {"kind": "isotonic", "x": [0.5, 0.1], "y": [0, 1]} for a in ("sta", "sim", "fl")}}),
                              "increasing")]:
        bad.write_text(content, encoding="utf-8")
        with pytest.raises(DetoxInputError, match=message) as info:
            fitted_calibration.load(bad)
        assert str(bad) in str(info.value)


def test_preset_attributes():
    cls = preset_class("rudetox-mera")
    assert cls.languages == ("ru",) and cls.needs_download
    assert set(cls.model_kinds) == {"sta", "sim", "fl"} and set(cls.axis_help) >= {"sta", "sim", "fl"}
    assert cls.label and cls.title and cls.description


def test_no_pickle_in_the_calibration_code():
    root = Path(__file__).resolve().parents[2]
    calibration = sorted((root / "detox_core" / "calibration").glob("*.py"))
    assert {p.name for p in calibration} >= {"fitted.py", "evaluation.py", "rotation.py"}
    others = ("detox_core.metrics.rudetox_mera", "detox_core.metrics.rudetox_mera_published", "detox_core.cli.human",
              "detox_core.cli.args", "detox_core.annotation.crowd_filter", "detox_core.ui.human_eval.calibrators")
    for path in [*calibration, *(root / (name.replace(".", "/") + ".py") for name in others)]:
        text, name = path.read_text(encoding="utf-8"), path.name
        code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("#", '"', "``")))
        assert "import pickle" not in code and "joblib" not in code and "read_pickle" not in code, name


def write_judgements(path: Path) -> Path:
    """A humaneval-schema file: the pairs of two systems with their human labels."""
    rng = np.random.default_rng(7)
    rows = ["toxic_sentence\tneutral_sentence\tparticipant_name\tnon-toxicity\tcontent\tfluency\tJ"]
    for system, outs in (("a", OUTPUTS), ("b", [o.strip() + " вот" for o in OUTPUTS])):
        for inp, out in zip(INPUTS, outs):
            sta, sim, fl = rng.integers(0, 2), rng.integers(0, 2), rng.choice([0, 0.5, 1])
            rows.append(f"{inp}\t{out.strip()}\t{system}\t{sta}\t{sim}\t{fl}\t{sta * sim * fl}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_cli_fit_calibrators_and_score_with_them(mera_models, tmp_path, monkeypatch, capsys):
    from detox_core import cli

    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path / "data"))
    human = write_judgements(tmp_path / "human.tsv")
    models = [arg for role, folder in mera_models.items() for arg in ("--model", f"{role}={folder}")]
    code = cli.main(["fit-calibrators", "--human", str(human), "--device", "cpu", "-q", *models])
    assert code == 0, capsys.readouterr().err
    saved = fitted_calibration.load_saved("rudetox-mera")  # the default: the file the app reads
    assert saved.fitted_on["n"] == 12 and "human.tsv" in saved.fitted_on["description"]
    said = capsys.readouterr()
    assert "fitted on 12 pairs" in said.out and "written" in said.err and "written" not in said.out

    # The same fit from raw scores read from a file (what crowd-filter and score write).
    scores = get_preset("rudetox-mera", pool=ModelPool(device="cpu", backend="torch"),
                        models={r: str(p) for r, p in mera_models.items()})
    frame = pd.read_csv(human, sep="\t")
    raw = scores.score(frame["toxic_sentence"].tolist(), frame["neutral_sentence"].tolist(), calibrated=False)
    table = pd.concat([frame[["toxic_sentence", "neutral_sentence"]].set_axis(["input", "output"], axis=1),
                       raw[["sta_raw", "sim_raw", "fl_raw"]]], axis=1)
    table.to_csv(tmp_path / "raw.csv", index=False)
    code = cli.main(["fit-calibrators", "--human", str(human), "--scores", str(tmp_path / "raw.csv"),
                     "--out", str(tmp_path / "cal.json")])
    assert code == 0, capsys.readouterr().err
    from_file = fitted_calibration.load(tmp_path / "cal.json")
    assert from_file.fitted_on["sha256"] == saved.fitted_on["sha256"]  # same scores and labels
    for axis in ("sta", "sim", "fl"):
        np.testing.assert_allclose(from_file.axes[axis].params["y"], saved.axes[axis].params["y"], atol=1e-6)

    inputs = tmp_path / "inputs.txt"
    inputs.write_text("\n".join(INPUTS) + "\n", encoding="utf-8")
    preds = tmp_path / "sys.txt"
    preds.write_text("\n".join(o.strip() for o in OUTPUTS) + "\n", encoding="utf-8")
    code = cli.main(["score", "--inputs", str(inputs), "--preds", str(preds), "--preset", "rudetox-mera",
                     "--calibrators", str(tmp_path / "cal.json"), "--out", str(tmp_path / "out"), "--device", "cpu",
                     "--backend", "torch", "-q", *models])
    assert code == 0, capsys.readouterr().err
    sig = json.loads((tmp_path / "out" / "sys.signature.json").read_text(encoding="utf-8"))
    assert sig["calibration"]["sha256"] == from_file.digest()
    code = cli.main(["score", "--inputs", str(inputs), "--preds", str(preds), "--preset", "russe2022",
                     "--calibrators", str(tmp_path / "cal.json"), "--out", str(tmp_path / "out2")])
    assert code == 2 and "--calibrators applies to rudetox-mera" in capsys.readouterr().err


def test_the_published_calibrator_equals_the_benchmark_filter(tmp_path, capsys):
    """MERA's lm-eval filter builds its calibrator by setting an IsotonicRegression's
    fitted attributes (get_calibrator); the JSON copy predicts the same on every axis."""
    from scipy.interpolate import interp1d
    from sklearn.isotonic import IsotonicRegression

    from detox_core import cli
    from detox_core.metrics.rudetox_mera_published import X_THRESHOLDS, Y_THRESHOLDS, published_set

    x, y = np.array(X_THRESHOLDS), np.array(Y_THRESHOLDS)
    model = IsotonicRegression()
    model.set_params(out_of_bounds="clip", increasing=True, y_max=1, y_min=0)
    for name, value in {"X_min_": x[0], "X_max_": x[-1], "X_thresholds_": x, "y_thresholds_": y, "y_max": 1,
                        "y_min": 0, "increasing_": True,
                        "f_": interp1d(x=x, y=y, axis=0, bounds_error=False, copy=True, fill_value=np.array(np.nan))
                        }.items():
        setattr(model, name, value)
    grid = np.concatenate([np.linspace(-0.1, 1.1, 2001), x])
    code = cli.main(["fit-calibrators", "--published", "--out", str(tmp_path / "mera.json")])
    assert code == 0 and "published" in capsys.readouterr().out
    loaded = fitted_calibration.load(tmp_path / "mera.json")
    assert loaded == published_set() and loaded.fitted_on["published"]
    for axis in ("sta", "sim", "fl"):
        np.testing.assert_allclose(loaded.axes[axis].predict(grid), model.predict(grid[:, None]), atol=1e-12)
    assert "published" in loaded.describe()


def test_a_stored_submission_is_scored_again_when_the_calibrators_change(mera_models, tmp_path, monkeypatch):
    from detox_core.submissions.service import score_and_store
    from detox_core.submissions.store import Store

    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    ids = preset_class("rudetox-mera").default_models()
    pool = ModelPool(device="cpu", backend="torch", model_map={ids[r]: str(p) for r, p in mera_models.items()})
    store = Store(f"sqlite:///{tmp_path / 'subs.sqlite'}")
    content = ("\n".join(o.strip() for o in OUTPUTS) + "\n").encode("utf-8")

    def submit():
        return score_and_store(store, content, "sys.txt", dataset="russe2022", split="test", inputs=INPUTS,
                               references=[[]] * len(INPUTS), preset="rudetox-mera", calibrated=True,
                               source="upload", pool=pool)

    first, already = submit()
    assert not already and first.signature["calibration"]["type"] == "none"
    assert submit()[1]  # same file, same (no) calibrators: recognised
    raw, human = synthetic_judgements()
    cals = fitted_calibration.fit_set("rudetox-mera", raw, human, "isotonic", "synthetic")
    fitted_calibration.save(cals)
    again, already = submit()
    assert not already and again.signature["calibration"]["sha256"] == cals.digest()
    assert len(store.list()) == 1  # the raw scores were replaced, not kept beside
    assert submit()[1]


def test_cli_crowd_filter_scores_the_kept_pairs(mera_models, tmp_path, monkeypatch, capsys):
    from detox_core import cli
    from tests.annotation.test_crowd_filter import PAIRS, export_text, votes_for, write_table

    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path / "data"))
    args = ["crowd-filter", "--table", str(write_table(tmp_path / "dataset.csv"))]
    for task in ("toxicity", "content", "fluency"):
        (tmp_path / f"{task}.tsv").write_text(export_text(task, votes_for(task)), encoding="utf-8")
        args += [f"--{task}", str(tmp_path / f"{task}.tsv")]
    models = [arg for role, folder in mera_models.items() for arg in ("--model", f"{role}={folder}")]
    code = cli.main([*args, "--out", str(tmp_path / "kept.csv"), "--device", "cpu", "-q", *models])
    out = capsys.readouterr().out
    assert code == 0
    kept = pd.read_csv(tmp_path / "kept.csv")
    assert kept["input"].tolist() == [PAIRS[0][0], PAIRS[1][0]]
    direct = get_preset("rudetox-mera", pool=ModelPool(device="cpu", backend="torch"),
                        models={r: str(p) for r, p in mera_models.items()}).score(kept["input"].tolist(),
                                                                                 kept["output"].tolist())
    np.testing.assert_allclose(kept["j"], direct["j"], atol=1e-5)
    assert "rudetox-mera on the 2 kept pairs, raw (no calibrator fitted" in out
    assert f"J {direct['j'].mean():.3f}" in out
