"""Access settings that cannot be read stop the app with a message naming the file and line,
never open it: before, a missing quote in ``organizer_password`` read as "no password", and
every page and setting of a shared deployment was open."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from detox_core.ui.app import settings_check
from detox_core.ui.app.settings_check import MIN_ORGANIZER_CHARS, SettingsError, settings_problem

BROKEN = '[access]\norganizer_password = "a long password without its closing quote\n'


@pytest.fixture
def secrets_file(tmp_path, monkeypatch):
    """A secrets file of the test's, the only one Streamlit and the check read."""
    path = tmp_path / ".streamlit" / "secrets.toml"
    path.parent.mkdir()
    import streamlit as st

    before = st_config.get_option("secrets.files")
    st_config.set_option("secrets.files", [str(path)])
    monkeypatch.delenv("DETOX_ORGANIZER_PASSWORD", raising=False)
    st.secrets._secrets = None  # Streamlit keeps what it read: this test's file is read afresh
    yield path
    st.secrets._secrets = None
    st_config.set_option("secrets.files", before)


def test_a_missing_quote_is_named_with_its_file_line_and_column(secrets_file):
    secrets_file.write_text(BROKEN, encoding="utf-8")
    problem = settings_problem()
    assert str(secrets_file) in problem and "line 2" in problem and "column" in problem


@pytest.mark.parametrize("text, words", [
    ('[access]\norganizer_password = "short"\n', ["line 2", "5 characters", f"at least {MIN_ORGANIZER_CHARS}"]),
    ("[access]\norganizer_password = 123456789012345\n", ["line 2", "must be text"]),
    ('[annotation]\norganizer_password = ""\n', ["line 2", "0 characters"]),
    ('access = "open"\n', ["line 1", "must be a table"]),
    ('[access]\norganizer_password = "a long enough password"\npublic_pages = ["corpus", "annotation_projects", "x"]\n',
     ["line 3", "'annotation_projects', 'x'", "live_scoring"]),
    ('[access]\norganizer_password = "a long enough password"\npublic_pages = "corpus"\n', ["line 3", "a list"]),
    ('[access]\norganizer_password = "a long enough password"\nmodel_roots = "/srv/models"\n', ["line 3", "a list"]),
])
def test_values_that_cannot_be_the_access_settings_are_named(secrets_file, text, words):
    secrets_file.write_text(text, encoding="utf-8")
    problem = settings_problem()
    assert problem and str(secrets_file) in problem
    for w in words:
        assert w in problem, (w, problem)


def test_a_file_that_is_not_utf8_is_named_with_its_line(secrets_file):
    secrets_file.write_bytes(b'[access]\n# caf\xe9\norganizer_password = "a long enough password"\n')
    assert "line 2: not UTF-8" in settings_problem()


def test_good_settings_and_no_file_pass(secrets_file, monkeypatch):
    assert settings_problem() is None  # no file at all: an open app on one's own machine
    secrets_file.write_text('[access]\norganizer_password = "a long enough password"\n'
                            'public_pages = ["corpus", "leaderboard"]\nmodel_roots = ["data/models"]\n', encoding="utf-8")
    assert settings_problem() is None
    # The example the docs tell one to copy passes as it is.
    secrets_file.write_text((PROJECT_ROOT / ".streamlit" / "secrets.toml.example").read_text(encoding="utf-8"),
                            encoding="utf-8")
    assert settings_problem() is None


def test_a_short_password_in_the_environment_is_refused(secrets_file, monkeypatch):
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "guessme")
    assert "$DETOX_ORGANIZER_PASSWORD" in settings_problem() and "7 characters" in settings_problem()
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "")  # empty: unset, the open app of one's own machine
    assert settings_problem() is None


def test_a_broken_file_never_reads_as_an_open_app(secrets_file):
    import streamlit as st

    from detox_core.ui.app import auth

    secrets_file.write_text(BROKEN, encoding="utf-8")
    st.secrets._secrets = None  # read the files again, as a server does after a change
    try:
        with pytest.raises(SettingsError, match="line 2"):
            auth.is_open()
    finally:
        st.secrets._secrets = None


def test_a_page_run_reads_each_access_setting_once(secrets_file, tiny_data, monkeypatch):
    """Every page's visibility asks who the session is: a run read the secrets 32 times, each
    asking Streamlit's configuration (under its process-wide lock) and the file system."""
    from detox_core.ui.app import auth

    secrets_file.write_text('[access]\norganizer_password = "a long enough password"\n', encoding="utf-8")
    reads: list[tuple[str, str]] = []
    real = auth._read_secret
    monkeypatch.setattr(auth, "_read_secret", lambda section, key: reads.append((section, key)) or real(section, key))
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    reads.clear()
    at.run()
    assert not at.exception and reads
    assert len(reads) == len(set(reads)), reads
    assert "Organizer sign-in" in str(at.sidebar)  # still a visitor's page, asking for the password


def test_the_app_serves_only_the_message_while_the_file_is_broken(secrets_file, tiny_data):
    secrets_file.write_text(BROKEN, encoding="utf-8")
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert [e.value for e in at.error][0].startswith("**The app's access settings cannot be read, so it serves nothing.**")
    shown = at.error[0].value.replace("\\", "")  # the message is escaped Markdown: shown as typed
    assert str(secrets_file) in shown and "line 2, column" in shown
    # Nothing of a page: no sidebar settings, no page title.
    assert not at.title and not at.selectbox and not at.text_input


def test_detox_serve_refuses_to_start_on_a_broken_file(secrets_file, capsys, monkeypatch):
    from detox_core.ui.app import serve as launcher
    from detox_core.ui.app.serve import serve

    def started(*args, **kwargs):
        raise AssertionError("the server started")

    monkeypatch.setattr(launcher.streamlit_cli, "main", started)
    monkeypatch.setattr(launcher.warmup, "start", started)
    secrets_file.write_text(BROKEN, encoding="utf-8")
    assert serve(["--server.port", "1"]) == 2
    err = capsys.readouterr().err
    assert "does not start" in err and str(secrets_file) in err and "line 2" in err


def test_run_sh_stops_before_starting_anything(tmp_path):
    env = {**os.environ, "DETOX_PYTHON": sys.executable, "NGINX": "/bin/true", "DETOX_RUN_DIR": str(tmp_path / "run"),
           "DETOX_ORGANIZER_PASSWORD": "short"}
    done = subprocess.run(["bash", str(PROJECT_ROOT / "deploy" / "run.sh")], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "the access settings cannot be read, so nothing starts" in done.stderr
    assert "$DETOX_ORGANIZER_PASSWORD" in done.stderr and "5 characters" in done.stderr
    assert not list((tmp_path / "run").glob("app-*.pid"))


def test_settings_check_reads_the_files_streamlit_reads():
    assert settings_check.secrets_files() == [Path(f).expanduser() for f in st_config.get_option("secrets.files")]


def test_a_page_reached_directly_says_what_broke_and_shows_nothing(secrets_file, tiny_data):
    """A process's first session may run a page's file without app.py (Streamlit's pages/ mode):
    the page still shows only the message, never a redacted exception or the page."""
    secrets_file.write_text(BROKEN, encoding="utf-8")
    at = AppTest.from_file(str(PROJECT_ROOT / "pages" / "live_scoring.py"), default_timeout=60).run()
    assert not at.exception
    assert at.error and at.error[0].value.startswith("**The app's access settings cannot be read")
    assert not at.text_area and not at.button
