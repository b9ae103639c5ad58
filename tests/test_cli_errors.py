"""The command line answers bad arguments and files with one clear line: exit code 2 for the command line itself, 1 for a file."""

from __future__ import annotations

import pytest

from detox_core.cli import main

CROWD_HEAD = "INPUT:text\tOUTPUT:toxic\tGOLDEN:toxic\tASSIGNMENT:worker_id\n"


@pytest.fixture
def crowd(tmp_path):
    path = tmp_path / "crowd.tsv"
    path.write_text(CROWD_HEAD + "ты дебил\tyes\t\tw1\nну и погода\tno\t\tw2\n", encoding="utf-8")
    return path


def run_cli(capsys, argv: list[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def test_score_out_that_is_a_file(capsys, tmp_path, tiny_data):
    out = tmp_path / "taken"
    out.write_text("x")
    code, err = run_cli(capsys, ["score", "--inputs", str(tiny_data / "russe2022" / "test_references.tsv"),
                                 "--preds", str(tiny_data / "russe2022" / "outputs" / "delete_test.txt"),
                                 "--out", str(out)])
    assert code == 2 and "is a file; give a folder" in err


def test_score_out_that_cannot_be_made(capsys, tmp_path, tiny_data):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, err = run_cli(capsys, ["score", "--inputs", str(tiny_data / "russe2022" / "test_references.tsv"),
                                 "--preds", str(tiny_data / "russe2022" / "outputs" / "delete_test.txt"),
                                 "--out", str(blocker / "scores")])
    assert code == 2 and "cannot create the folder" in err


def test_aggregate_out_that_is_a_folder(capsys, tmp_path, crowd):
    code, err = run_cli(capsys, ["aggregate", "--crowd", str(crowd), "--task", "toxicity", "--out", str(tmp_path)])
    assert code == 2 and "is a folder; give a file name" in err


@pytest.mark.parametrize("value", ["-5", "0", "nope", "10000000"])
def test_meta_eval_n_boot_out_of_range(capsys, value):
    code, err = run_cli(capsys, ["meta-eval", "--human", "h.csv", "--n-boot", value])
    assert code == 2 and "--n-boot" in err and "expected an integer" in err


@pytest.mark.parametrize("value", ["nan", "1.5", "-0.1"])
def test_min_control_accuracy_must_be_a_fraction(capsys, crowd, tmp_path, value):
    code, err = run_cli(capsys, ["aggregate", "--crowd", str(crowd), "--task", "toxicity", "--out",
                                 str(tmp_path / "o.csv"), "--min-control-accuracy", value])
    assert code == 2 and "expected a number from 0 to 1" in err


def test_unsupported_database_url(capsys, tmp_path):
    code, err = run_cli(capsys, ["export-annotations", "--project", "p", "--db", "mysql://u:secret@h/db",
                                 "--out", str(tmp_path / "o.csv")])
    assert code == 1 and "unsupported database URL 'mysql'" in err and "secret" not in err


def test_missing_scores_folder(capsys, tmp_path, real_data):
    code, err = run_cli(capsys, ["meta-eval", "--human", str(real_data / "human_eval_test.csv"),
                                 "--scores", str(tmp_path / "nowhere")])
    assert code == 2 and "no such folder" in err


def test_bad_golden_value_names_the_golden_column(capsys, tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(CROWD_HEAD + "ты дебил\tyes\tmaybe\tw1\n", encoding="utf-8")
    code, err = run_cli(capsys, ["aggregate", "--crowd", str(path), "--task", "toxicity", "--out",
                                 str(tmp_path / "o.csv")])
    assert code == 1 and "line 2, column 'GOLDEN:toxic'" in err and "'maybe'" in err


def test_empty_worker_id_is_refused_with_its_line(capsys, tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(CROWD_HEAD + "ты дебил\tyes\t\tw1\nну и погода\tno\t\t \n", encoding="utf-8")
    code, err = run_cli(capsys, ["aggregate", "--crowd", str(path), "--task", "toxicity", "--out",
                                 str(tmp_path / "o.csv")])
    assert code == 1 and "line 3, column 'ASSIGNMENT:worker_id': the worker id is empty" in err


def test_a_field_over_131072_characters_is_read(tmp_path):
    from detox_core import data

    long = "а" * 200_000
    table = data.parse_table(f"toxic_comment\tneutral_comment1\n{long}\tкоротко\n", "big.tsv")
    assert len(table.rows[0][0]) == 200_000


@pytest.mark.parametrize("argv, words", [
    (["score", "--json", "--preset"], "expected one argument"),
    (["score", "--json", "--no-such-option", "x"], "the following arguments are required: --preds"),
    (["health", "--json", "--no-such-option"], "unrecognized arguments: --json --no-such-option"),
    (["meta-eval", "--json", "--n-boot", "many"], "--n-boot"),
])
def test_usage_errors_of_a_json_command_print_its_json_object(capsys, argv, words):
    """A script reading stdout gets one object for a usage error too (before: usage text only)."""
    import json

    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    out = capsys.readouterr()
    said = json.loads(out.out)
    assert said["command"] == argv[0] and said["exit_code"] == 2 and words in said["error"]
    assert "usage:" in out.err  # people still get argparse's usage line


def test_usage_errors_without_json_print_nothing_on_stdout(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--preset"])
    assert capsys.readouterr().out == ""
