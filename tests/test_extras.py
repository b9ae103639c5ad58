"""A part of the package whose extra is not installed says, in one line where it is needed, which
extra to install (never an ImportError's traceback); the bare package's parts go on working.

The extras' packages are installed here (`make test` installs everything), so each test hides some
of them from :mod:`detox_core.extras` (what every check reads); CI's install check runs the bare
package for real."""

from __future__ import annotations

import pytest

from detox_core import extras
from detox_core.cli import main
from detox_core.errors import MissingExtraError


@pytest.fixture
def without(monkeypatch):
    """Hide the named modules (import names) from detox_core.extras, as if not installed."""
    def hide(*modules: str) -> None:
        installed = extras._installed
        monkeypatch.setattr(extras, "_installed", lambda m: m not in modules and installed(m))
    return hide


def test_a_missing_extra_is_one_line_with_the_pip_command(without, monkeypatch):
    without("torch", "transformers", "sentence_transformers", "onnxruntime", "onnx")
    monkeypatch.setattr(extras, "_source", lambda: "detox-dashboard")  # installed from the package index
    line = extras.why_missing("models", "the RUSSE-2022 preset")
    assert line == ("the RUSSE-2022 preset needs the [models] extra (torch, transformers, sentence_transformers not "
                    "installed): install torch's CPU or CUDA build first (README), then "
                    "pip install 'detox-dashboard[models]'")
    assert "\n" not in line
    assert extras.why_missing("models", "ONNX Runtime", ("onnxruntime", "onnx")).startswith(
        "ONNX Runtime needs the [models] extra (onnxruntime, onnx not installed)")
    assert extras.why_missing("app", "The dashboard") is None  # installed here


def test_the_pip_line_names_the_checkout_a_package_was_installed_from(monkeypatch, tmp_path):
    """From a checkout (the README's install), `pip install 'detox-dashboard[app]'` would ask the
    package index: the line names the folder pip installed from, as pip recorded it."""
    import json
    from types import SimpleNamespace

    record = {"url": (tmp_path / "my checkout").as_uri(), "dir_info": {}}
    monkeypatch.setattr(extras.importlib.metadata, "distribution",
                        lambda name: SimpleNamespace(read_text=lambda f: json.dumps(record)))
    assert extras.install_line("app") == f"pip install '{tmp_path / 'my checkout'}[app]'"
    record = {"url": "https://example.org/detox_dashboard-0.1.0-py3-none-any.whl", "archive_info": {}}
    assert extras.install_line("postgres") == "pip install 'detox-dashboard[postgres]'"


def test_an_official_preset_without_its_models_extra_is_unavailable_and_says_why(without):
    from detox_core.metrics import preset_class

    assert preset_class("russe2022").unavailable() is None
    without("torch")
    why = preset_class("russe2022").unavailable()
    assert "[models]" in why and extras.install_line("models") in why
    assert preset_class("embedded").unavailable() is None  # the bare package runs it
    assert preset_class("embedded").extra is None


def test_scoring_with_an_official_preset_says_which_extra(without, tmp_path, capsys):
    """`detox score --preset russe2022` without [models]: exit 3 (cannot run here) and one line that
    names the extra, before any model is looked for."""
    without("torch", "transformers")
    (tmp_path / "inputs.txt").write_text("ты тупой\n", encoding="utf-8")
    (tmp_path / "team.txt").write_text("ты не прав\n", encoding="utf-8")
    code = main(["score", "--inputs", str(tmp_path / "inputs.txt"), "--preds", str(tmp_path / "team.txt"),
                 "--preset", "russe2022", "--json", "-q"])
    err = capsys.readouterr().err
    assert code == 3
    assert f"needs the [models] extra (torch, transformers not installed): {extras.install_line('models')}" in err
    assert "Traceback" not in err


def test_the_embedded_preset_scores_without_the_extras(without, tmp_path, capsys):
    without(*(m for needed, others in extras.EXTRAS.values() for m in needed + others))
    (tmp_path / "inputs.txt").write_text("you are a stupid idiot, shut up\n", encoding="utf-8")
    (tmp_path / "team.txt").write_text("you are wrong, please stop\n", encoding="utf-8")
    code = main(["score", "--inputs", str(tmp_path / "inputs.txt"), "--preds", str(tmp_path / "team.txt"),
                 "--json", "-q"])
    out = capsys.readouterr().out
    assert code == 0 and '"preset": "embedded"' in out and '"j": ' in out


def test_serve_without_the_app_extra_says_so(without, capsys):
    without("streamlit")
    assert main(["serve"]) == 3
    err = capsys.readouterr().err
    assert f"The dashboard needs the [app] extra (streamlit not installed): {extras.install_line('app')}" in err
    assert "Traceback" not in err


def test_serve_with_a_postgresql_url_without_its_driver_says_so_before_serving(without, monkeypatch, capsys):
    without("psycopg")
    monkeypatch.setenv("DETOX_DB_URL", "postgresql+psycopg://user:secret@localhost/detox")
    assert main(["serve"]) == 3
    err = capsys.readouterr().err
    assert "DETOX_DB_URL's PostgreSQL database needs the [postgres] extra (psycopg not installed)" in err
    assert "secret" not in err and "Traceback" not in err


def test_a_postgresql_database_without_its_driver_says_so(without):
    from detox_core.db import make_engine

    without("psycopg")
    with pytest.raises(MissingExtraError, match=r"PostgreSQL database needs the \[postgres\] extra"):
        make_engine("postgresql+psycopg://user:secret@localhost/detox")
    assert make_engine("sqlite://").dialect.name == "sqlite"  # SQLite needs nothing


def test_dawid_skene_without_crowd_kit_says_so_and_majority_vote_still_runs(without):
    import pandas as pd

    from detox_core.annotation.aggregation import make_aggregator

    without("crowdkit")
    answers = pd.DataFrame({"worker": ["a", "b", "c"], "task": ["t", "t", "t"], "label": [1, 1, 0]})
    with pytest.raises(MissingExtraError, match=r"Dawid-Skene aggregation needs the \[app\] extra \(crowdkit"):
        make_aggregator("ds").fit(answers)
    assert make_aggregator("mv", min_votes=1).fit(answers).labels_["t"] == 1


def test_a_model_load_without_the_models_extra_fails_before_any_download(without, monkeypatch):
    from detox_core.models import ModelPool, pool

    without("torch")
    monkeypatch.setattr(pool, "hub_reachable", lambda *a, **k: pytest.fail("the hub was asked"))
    with pytest.raises(MissingExtraError, match=r"the sta model 's-nlp/russian_toxicity_classifier' needs the \[models\]"):
        ModelPool(device="cpu").get("s-nlp/russian_toxicity_classifier", "classifier", role="sta")
