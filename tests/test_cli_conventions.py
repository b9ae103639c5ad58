"""The command line's conventions, for scripts that call it: documented exit codes (0 done,
1 bad data, 2 usage, 3 a model that cannot run, 130 interrupted), results on stdout and
messages on stderr, and ``--json`` printing one JSON object."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from detox_core import cli
from detox_core.cli import annotation as annotation_commands
from tests.multilingual import MIRROR, needs_mirror

CROWD_HEAD = "INPUT:text\tOUTPUT:toxic\tGOLDEN:toxic\tASSIGNMENT:worker_id\n"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def crowd(tmp_path) -> Path:
    path = tmp_path / "crowd.tsv"
    rows = [(text, answer, gold, worker) for worker in ("w1", "w2", "w3")
            for text, answer, gold in (("ты дебил", "yes", ""), ("ну и погода", "no", ""), ("сука", "yes", "yes"))]
    path.write_text(CROWD_HEAD + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    return path


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    said = capsys.readouterr()
    assert "Traceback" not in said.err
    return code, said.out, said.err


def test_every_documented_exit_code(capsys, tmp_path, crowd, monkeypatch):
    out = tmp_path / "labels.csv"
    assert run(capsys, ["aggregate", "--crowd", str(crowd), "--task", "toxicity", "--out", str(out)])[0] == 0

    bad = tmp_path / "bad.tsv"  # a file whose content is wrong: 1, with its line and column
    bad.write_text(CROWD_HEAD + "ты дебил\tyes\tmaybe\tw1\n", encoding="utf-8")
    code, _, err = run(capsys, ["aggregate", "--crowd", str(bad), "--task", "toxicity", "--out", str(out)])
    assert code == 1 and "line 2, column 'GOLDEN:toxic'" in err

    # usage: argparse's refusals and the commands' own checks of their options are both 2
    code, _, err = run(capsys, ["aggregate", "--crowd", str(crowd), "--task", "toxicity", "--out", str(out), "--nope"])
    assert code == 2 and "--nope" in err
    code, _, err = run(capsys, ["aggregate", "--crowd", str(crowd), "--task", "toxicity", "--out", str(tmp_path)])
    assert code == 2 and "is a folder; give a file name" in err
    inputs = tmp_path / "inputs.txt"
    inputs.write_text("ты дебил\n", encoding="utf-8")
    code, _, err = run(capsys, ["score", "--inputs", str(inputs), "--preds", str(inputs), "--preset", "nope",
                                "--out", str(tmp_path / "o")])
    assert code == 2 and "unknown preset" in err

    # a judge that cannot run here: 3, before anything is written
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "DETOX_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    code, _, err = run(capsys, ["score", "--inputs", str(inputs), "--preds", str(inputs), "--preset", "llm-judge",
                                "--out", str(tmp_path / "judged"), "-q"])
    assert code == 3 and "error:" in err and not (tmp_path / "judged").exists()

    # an edition not fetched here: missing data, 1, and the command that fetches it
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path / "empty"))
    code, _, err = run(capsys, ["score", "--edition", "textdetox2024", "--split", "test", "--preds", str(inputs),
                                "--preset", "embedded", "--out", str(tmp_path / "unfetched"), "-q"])
    assert code == 1 and "fetch-data" in err and not (tmp_path / "unfetched").exists()

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(annotation_commands, "_cmd_aggregate", interrupted)
    code, _, err = run(capsys, ["aggregate", "--crowd", str(crowd), "--task", "toxicity", "--out", str(out)])
    assert code == 130 and "interrupted" in err


def test_help_documents_the_exit_codes_and_the_streams(capsys):
    code, out, _ = run(capsys, ["--help"])
    assert code == 0
    text = " ".join(out.split())
    for code, what in cli.EXIT_CODES.items():
        assert f"{code} {what.split(':')[0]}" in text
    assert "results go to stdout, messages to stderr" in text


def test_results_on_stdout_messages_on_stderr(capsys, tmp_path, crowd):
    out = tmp_path / "labels.csv"
    code, stdout, stderr = run(capsys, ["aggregate", "--crowd", str(crowd), "--task", "toxicity", "--out", str(out)])
    assert code == 0 and "2 items, 2 labelled" in stdout and "written" not in stdout
    assert f"written: {out}" in stderr


def test_aggregate_json_is_one_object_with_the_figures_and_signature(capsys, tmp_path, crowd):
    out = tmp_path / "labels.csv"
    code, stdout, stderr = run(capsys, ["aggregate", "--crowd", str(crowd), "--task", "toxicity", "--method", "mv",
                                        "--out", str(out), "--json"])
    assert code == 0 and "written" in stderr
    report = json.loads(stdout)  # the whole of stdout is one object
    assert report["command"] == "aggregate" and report["items"] == 2 and report["labelled"] == 2
    assert report["labels"] == {"0": 1, "1": 1} and report["written"] == [str(out)]
    assert report["signature"].startswith("aggregate|task:toxicity|method:mv|")


def test_score_prints_a_line_per_system_and_json_for_russe_style_files(capsys, tmp_path, tiny_data, tiny_models):
    corpus = tiny_data / "russe2022" / "test_references.tsv"
    preds = [tiny_data / "russe2022" / "outputs" / "delete_test.txt", tiny_data / "russe2022" / "outputs" / "copy_test.txt"]
    models = [a for role in ("sta", "sim", "fl") for a in ("--model", f"{role}={tiny_models[role]}")]
    base = ["score", "--inputs", str(corpus), "--preds", *map(str, preds), "--preset", "russe2022", *models,
            "--backend", "torch", "-q"]
    code, stdout, stderr = run(capsys, [*base, "--out", str(tmp_path / "a")])
    assert code == 0, stderr
    lines = stdout.strip().splitlines()
    assert [line.split()[0] for line in lines] == ["delete_test", "copy_test"]
    assert all(" J " in line and " STA " in line and "chrF" in line for line in lines)
    assert "written: 5 files" in stderr and "written" not in stdout

    code, stdout, stderr = run(capsys, [*base, "--out", str(tmp_path / "b"), "--json"])
    assert code == 0, stderr
    report = json.loads(stdout)
    assert report["command"] == "score" and report["preset"] == "russe2022"
    assert [s["name"] for s in report["systems"]] == ["delete_test", "copy_test"]
    for system in report["systems"]:
        assert 0 <= system["j"] <= 1 and system["signature"].startswith("preset:russe2022|")
        assert system["signature_fields"]["preset"] == "russe2022"
        assert "|lang:ru|langid:detected|" in system["signature"]  # no language was given: detected, and said so
    assert len(report["written"]) == 5


def test_score_detects_the_language_of_plain_inputs_as_the_library_does(capsys, tmp_path, embedded_models):
    """Ukrainian inputs in a text file are scored as Ukrainian (detected, and the signature says so),
    never as Russian; inputs whose language cannot be told are refused with the fix; a folder given
    as a file is named."""
    inputs, outputs = tmp_path / "uk_in.txt", tmp_path / "uk_out.txt"
    inputs.write_text("Просто забирайся нахуй з моєї голови.\nти дурень, йди геть звідси\n", encoding="utf-8")
    outputs.write_text("Просто йди з моєї голови.\nти неправий, йди звідси\n", encoding="utf-8")
    code, stdout, stderr = run(capsys, ["score", "--inputs", str(inputs), "--preds", str(outputs), "--preset",
                                        "embedded", "--json", "-q"])
    assert code == 0, stderr
    (system,) = json.loads(stdout)["systems"]
    assert "|lang:uk|langid:detected|" in system["signature"] and 0 <= system["j"] <= 1
    unsure = tmp_path / "unsure.txt"
    unsure.write_text("ok\nok!\n", encoding="utf-8")
    code, stdout, stderr = run(capsys, ["score", "--inputs", str(unsure), "--preds", str(outputs), "--out",
                                        str(tmp_path / "o"), "-q"])
    assert code == 1 and stdout == "" and not (tmp_path / "o").exists()
    assert "cannot be told" in stderr and "pair 1: 'ok'; pair 2: 'ok!'" in stderr and "--lang en" in stderr
    code, stdout, stderr = run(capsys, ["score", "--inputs", str(unsure), "--preds", str(outputs), "--lang", "en",
                                        "--json", "-q"])
    assert code == 0 and "|lang:en|langid:given|" in json.loads(stdout)["systems"][0]["signature"]
    code, stdout, stderr = run(capsys, ["score", "--inputs", str(inputs), "--preds", str(tmp_path), "--out",
                                        str(tmp_path / "o"), "-q"])
    assert code == 1 and f"{tmp_path}: is a folder, not a file" in stderr


def test_serve_without_the_apps_pages_says_where_the_app_runs(capsys, tmp_path, monkeypatch):
    from detox_core.ui.app import serve

    monkeypatch.setattr(serve, "APP", tmp_path / "app.py")  # an installed copy: no app.py beside the package
    code, stdout, stderr = run(capsys, ["serve"])
    assert code == 1 and stdout == ""
    assert "pages are missing" in stderr and "reinstall" in stderr and "make run" in stderr


def test_meta_eval_json(capsys, real_data):
    code, stdout, stderr = run(capsys, ["meta-eval", "--human", str(real_data / "human_eval_test.csv"),
                                        "--n-boot", "20", "--json"])
    assert code == 0, stderr
    report = json.loads(stdout)
    rows = {(r["metric"], r["level"]): r for r in report["rows"]}
    assert round(rows[("CLS_OLD_GEN", "sentence")]["roc_auc"], 3) == 0.797  # the figure the table prints
    assert report["signature"].startswith("meta-eval|boot:20|") and report["judged_pairs"] > 0


def test_agreement_json(capsys, embedded_models):
    code, stdout, stderr = run(capsys, ["agreement", "--json"])
    assert code == 0, stderr
    (preset,) = json.loads(stdout)["presets"]
    assert preset["preset"] == "embedded" and preset["judged_pairs"] > 0
    assert preset["roc_auc"]["low"] <= preset["roc_auc"]["value"] <= preset["roc_auc"]["high"]
    assert preset["signature"].startswith("preset:embedded|") and "edition:" in preset["signature"]
    # what the object says of calibration is what its signature says
    assert ("|calibrated:yes|" in preset["signature"]) == bool(preset["calibrated"])


@needs_mirror
def test_the_installed_command_scores_an_edition_as_json(tmp_path, real_data, embedded_models):
    """The acceptance run: the ``detox`` console command on the 2024 test set's duplicate
    baseline prints one JSON object with a J per language and the signature, exit 0."""
    detox = Path(sys.executable).parent / "detox"
    assert detox.exists(), "the detox command is not installed: pip install -e . (make setup does)"
    env = {**os.environ, "DETOX_DATA_DIR": str(real_data.parent)}
    done = subprocess.run([str(detox), "score", "--edition", "textdetox2024", "--split", "test", "--preds",
                           str(MIRROR / "textdetox2024" / "outputs" / "duplicate_test.tsv"), "--preset", "embedded",
                           "--out", str(tmp_path / "out"), "--json"], capture_output=True, text=True, env=env,
                          timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    (system,) = report["systems"]
    assert set(system["languages"]) == {"am", "ar", "de", "en", "es", "hi", "ru", "uk", "zh"}
    assert all(lang["j"] is not None for lang in system["languages"].values())
    assert system["signature"].startswith("preset:embedded|") and "|lang:am,ar,de,en,es,hi,ru,uk,zh|" in system["signature"]
    assert system["j"] < 0.2  # a copy of the toxic inputs is not a detoxification


def test_an_installed_copy_keeps_its_data_in_the_users_folder_and_scores_at_once(capsys, tmp_path, monkeypatch):
    # pip install without a checkout: the data is never looked for in site-packages, and a first
    # `detox score` with the embedded preset scores at once (its heads ship: nothing to fetch or train).
    from detox_core import config

    monkeypatch.setattr(config, "IN_CHECKOUT", False)
    monkeypatch.delenv("DETOX_DATA_DIR", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{tmp_path / 'db.sqlite'}")
    home_data = tmp_path / "home" / ".local" / "share" / "detox-dashboard"
    assert config.data_dir() == home_data
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert config.data_dir() == tmp_path / "xdg" / "detox-dashboard"
    (tmp_path / "in.txt").write_text("ты дебил\n", encoding="utf-8")
    (tmp_path / "out.txt").write_text("ты неправ\n", encoding="utf-8")
    code, out, err = run(capsys, ["score", "--inputs", str(tmp_path / "in.txt"), "--preds", str(tmp_path / "out.txt"),
                                  "--preset", "embedded", "--out", str(tmp_path / "scores"), "-q"])
    assert code == 0, err
    assert (tmp_path / "scores").is_dir() and out.strip()  # the scores written, a line per system printed
    assert not (tmp_path / "xdg" / "detox-dashboard" / "models").exists()  # nothing trained into the folder


def test_json_without_out_writes_nothing_and_an_unknown_preset_is_a_usage_error(capsys, tmp_path, monkeypatch,
                                                                                embedded_models):
    monkeypatch.chdir(tmp_path)
    inputs, outputs = tmp_path / "in.txt", tmp_path / "out.txt"
    inputs.write_text("you are a stupid idiot\nshut up, you moron\n", encoding="utf-8")
    outputs.write_text("you are wrong\nplease be quiet\n", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    code, stdout, stderr = run(capsys, ["score", "--inputs", str(inputs), "--preds", str(outputs), "--json", "-q"])
    assert code == 0, stderr
    report = json.loads(stdout)
    assert report["written"] == [] and sorted(p.name for p in tmp_path.iterdir()) == before
    assert "written" not in stderr
    # neither --out nor --json: nothing to do
    code, _, stderr = run(capsys, ["score", "--inputs", str(inputs), "--preds", str(outputs)])
    assert code == 2 and "--out DIR" in stderr
    tsv = tmp_path / "inputs.tsv"
    tsv.write_text("toxic_sentence\tlang\nyou are a stupid idiot\ten\n", encoding="utf-8")
    sub = tmp_path / "team.tsv"
    sub.write_text("toxic_sentence\tneutral_sentence\tlang\nyou are a stupid idiot\tyou are wrong\ten\n",
                   encoding="utf-8")
    for argv in (["--inputs", str(inputs), "--preds", str(outputs)], ["--inputs", str(tsv), "--preds", str(sub)]):
        code, stdout, stderr = run(capsys, ["score", *argv, "--preset", "nope", "--json"])
        assert code == 2 and "unknown preset 'nope'" in stderr and json.loads(stdout)["exit_code"] == 2


def test_devices_utf16_and_json_errors_are_said_plainly(capsys, tmp_path, monkeypatch):
    """`--preds /dev/zero` is not "file not found"; a UTF-16 file is named as such; with --json an
    error is also one JSON object on stdout (a script reading stdout gets an object either way)."""
    inputs = tmp_path / "in.txt"
    inputs.write_text("you are a stupid idiot\n", encoding="utf-8")
    code, stdout, stderr = run(capsys, ["score", "--inputs", str(inputs), "--preds", "/dev/zero", "--json", "-q"])
    assert code == 1 and "/dev/zero" in stderr and "not a regular file" in stderr
    error = json.loads(stdout)
    assert error["command"] == "score" and error["exit_code"] == 1 and "not a regular file" in error["error"]
    utf16 = tmp_path / "team.txt"
    utf16.write_bytes("you are wrong\n".encode("utf-16"))
    code, stdout, stderr = run(capsys, ["score", "--inputs", str(inputs), "--preds", str(utf16), "--out",
                                        str(tmp_path / "o"), "-q"])
    assert code == 1 and "UTF-16" in stderr and "1251" not in stderr and stdout == ""
