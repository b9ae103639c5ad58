"""The warm-up as people see it: a line in the sidebar while the models warm, which
presets are warm after, and a warning per preset that could not be warmed, its reason
shown as typed (never as markup); a score that finds its preset warming does not wait for
the rest of the warm-up."""

from __future__ import annotations

import threading
import time

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.metrics import warmup


def _sidebar() -> None:
    from detox_core.ui.app.warming import render_warmup_status

    render_warmup_status()


def _score(preset: str) -> None:
    import streamlit as st

    from detox_core.ui.app.warming import warming_notice

    with warming_notice(preset):
        st.write("scored")


def item(preset: str, label: str, status: str, done: int = 0, steps=("one", "two"), reason=None):
    return warmup.Item(preset, label, tuple(steps), done=done, status=status, reason=reason)


@pytest.fixture
def shown(monkeypatch):
    """The process's warm-up replaced by one whose state the test sets."""
    w = warmup.Warmup()
    monkeypatch.setattr(warmup, "_DEFAULT", w)

    def set_state(**fields) -> warmup.Warmup:
        w._state = warmup.State(**fields)
        return w

    return set_state


def test_nothing_is_shown_before_the_warmup_starts(shown):
    shown()
    at = AppTest.from_function(_sidebar).run()
    assert not at.exception and not at.sidebar.caption and not at.sidebar.warning


def test_the_sidebar_says_what_is_warming(shown):
    shown(started=True, planned=True,
          items=(item("embedded", "Embedded (offline CPU)", "warming", done=1), item("russe2022", "RUSSE", "waiting")))
    at = AppTest.from_function(_sidebar).run()
    assert not at.exception
    assert [c.value for c in at.sidebar.caption] == [
        ":material/hourglass_top: Warming models\\: Embedded \\(offline CPU\\) 1/2 · two · then 1 more preset"]


def test_once_warm_it_names_the_warm_presets_and_warns_of_each_failure_as_typed(shown):
    reason = "RuntimeError: *damaged* [weights](http://example.org) <b>x</b>"
    shown(started=True, planned=True, finished=True, seconds=4.2,
          items=(item("embedded", "Embedded (offline CPU)", "ready", done=2),
                 item("embedded-bad", "Embedded (offline CPU)", "failed", reason=reason)))
    at = AppTest.from_function(_sidebar).run()
    assert not at.exception
    assert [c.value for c in at.sidebar.caption] == [
        ":material/check_circle: Models warm\\: Embedded \\(offline CPU\\) \\(4 s\\)"]
    [warning] = at.sidebar.warning
    assert "could not be warmed" in warning.value
    # The reason reaches the page escaped: no emphasis, link or HTML.
    assert "\\*damaged\\*" in warning.value and "\\[weights\\]\\(http" in warning.value
    assert "\\<b\\>x\\</b\\>" in warning.value


def test_a_score_during_the_warmup_does_not_wait_for_the_rest_of_it(shown):
    """The score loads what it needs through the same locks: a Russian score must not wait
    for the other languages' models (a second and more of the language identifier)."""
    w = shown(started=True, planned=True, items=(item("embedded", "Embedded (offline CPU)", "warming"),))

    def finish() -> None:
        time.sleep(3.0)
        w._set_item(0, status="ready", done=2)
        w._set(finished=True, seconds=3.0)

    threading.Thread(target=finish, daemon=True).start()
    at = AppTest.from_function(_score, args=("embedded",), default_timeout=30).run()
    assert not at.exception
    assert warmup.state().warming  # it scored while the warm-up was still going (it ends 3 s in)
    assert [m.value for m in at.markdown] == ["scored"]
    assert not at.info  # the notice goes once the score is over


def test_a_score_of_a_warm_preset_does_not_wait(shown):
    shown(started=True, planned=True, finished=True, items=(item("embedded", "Embedded (offline CPU)", "ready", 2),))
    at = AppTest.from_function(_score, args=("embedded",)).run()
    assert not at.exception and not at.info  # no "warming" notice: nothing was waited for



def test_the_app_steps_import_what_the_pages_import_and_fill_the_sidebar_cache(tiny_data, monkeypatch):
    """The launcher's warm-up does the first visitor's work: every module the entry script
    and the pages import is imported, and the sidebar's default corpus is prepared into
    the pages' own cache, so the sidebar prepares nothing itself."""
    import sys

    from detox_core.analysis import corpus
    from detox_core.ui.app import cache, warming

    modules = warming.page_modules()
    assert {"detox_core.ui.sidebar.corpus", "detox_core.ui.widgets.scores"} <= set(modules)
    assert "__future__" not in modules and len(modules) == len(set(modules))
    warming.import_page_modules()
    # What the pages' sections import comes with them (the plots, Live scoring's best rewrite).
    assert all(name in sys.modules for name in [*modules, "plotly.graph_objects", "detox_core.live.best"])

    cache._prepared.clear()
    prepared: list[int] = []
    real = corpus.prepare_corpus
    monkeypatch.setattr(corpus, "prepare_corpus", lambda *a, **k: prepared.append(1) or real(*a, **k))
    warming.prepare_default_corpus()
    assert prepared == [1]

    def page() -> None:
        from detox_core.ui.sidebar.corpus import render_sidebar

        render_sidebar()

    at = AppTest.from_function(page).run()
    assert not at.exception
    assert prepared == [1]  # the sidebar found it prepared
    assert any("toxic sentences" in c.value for c in at.sidebar.caption)


def test_the_warmups_missing_context_warning_is_dropped_for_its_thread_only():
    import logging

    from detox_core.ui.app import warming  # noqa: F401 - installs the filter

    logger = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    record = logger.makeRecord(logger.name, logging.WARNING, __file__, 1,
                               "Thread '%s': missing ScriptRunContext! This warning can be ignored", ("x",), None)
    assert logger.filter(record)  # any other thread: kept
    record.threadName = warmup.THREAD_NAME
    assert not logger.filter(record)


def test_the_launcher_warms_the_pages_before_the_models_once_its_server_is_up(monkeypatch):
    from streamlit.web import cli as streamlit_cli

    from detox_core.ui.app import serve

    asked: list[list[str]] = []
    monkeypatch.setattr(warmup, "start", lambda delay=0.0, app_steps=(): asked.append([s[0] for s in app_steps]))
    monkeypatch.setattr(streamlit_cli, "main", lambda *a, **k: None)
    assert serve.serve(["--server.port", "1"]) == 0
    assert asked == [["the server", "the pages' code", "the toxic lexicons (built once)", "the word stemmers",
                      "the default corpus"]]


def test_a_first_start_without_lexicons_builds_them_once(tmp_path, monkeypatch):
    """An installed copy whose data command was never run: the warm-up builds the lexicons
    (the Delete baseline was off outside Russian until then), and a later start keeps them."""
    from detox_core.lexicons import read_lexicons
    from detox_core.ui.app import warming

    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    assert read_lexicons(tmp_path) == {}
    warming.build_missing_lexicons()
    built = read_lexicons(tmp_path)
    assert {"en", "de", "es", "uk"} <= set(built) and all(built[c].words for c in ("en", "de", "es"))
    stamp = (tmp_path / "lexicons" / "sources.json").stat().st_mtime_ns
    warming.build_missing_lexicons()
    assert (tmp_path / "lexicons" / "sources.json").stat().st_mtime_ns == stamp  # not built again
