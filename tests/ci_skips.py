"""A pytest plugin: in CI (``CI`` set, as ``CI=true``) a test may not be skipped.

Elsewhere a test that needs what this machine lacks (the offline data mirror, fetched data,
Chromium, nginx, PostgreSQL, pdflatex, the model of meaning, built lexicons ...) is skipped
with the reason. In CI that skip would hide a test that never ran, so there it fails with
the reason instead: ``CI=true: this test may not be skipped: <reason>``. That covers

* ``pytest.skip(...)`` in a test or a fixture, ``skip``/``skipif`` marks (a module's
  ``pytestmark`` included) and ``pytest.importorskip`` inside a test: the test fails;
* a module skipped while it is collected (``pytest.skip(..., allow_module_level=True)``,
  ``importorskip`` at module level): the module collects one failing test in its place
  (named ``collection_skip``) rather than a collection error, which would stop the run.

A skip that is right even in CI is marked, with the reason it is:
``@pytest.mark.ci_may_skip(reason="...")`` (a parameter takes it with
``pytest.param(..., marks=...)``). Keep that list small. A module skipped at collection
cannot be allowed: skip in its tests instead. Expected failures (``xfail``) are left as
they are.

``CI`` is "set" as pytest reads it too: any value but the empty string. tests/conftest.py
loads this plugin; tests/test_ci_skips.py runs it on a small suite of its own (``-p``).
"""

from __future__ import annotations

import os
import sys

import pytest

MARKER = "ci_may_skip"
MARKER_HELP = (f"{MARKER}(reason): a skip that is right even with CI=true (elsewhere a skip fails in CI); "
               "keep this list small")
PREFIX = "CI=true: this test may not be skipped: "
#: The name of the failing test that stands for a module skipped while it was collected.
COLLECTION_SKIP = "collection_skip"


def in_ci() -> bool:
    """Whether this run is CI's: ``CI`` set to anything (``CI=true``), as pytest reads it."""
    return bool(os.environ.get("CI"))


def required(variable: str) -> bool:
    """Whether what ``variable`` (``DETOX_REQUIRE_POSTGRES``, ``DETOX_REQUIRE_DEPLOY``) asks
    for must be here: the variable set, or CI (which implies every such variable)."""
    return in_ci() or os.environ.get(variable, "") not in ("", "0")


def _skip_exceptions() -> tuple[type[BaseException], ...]:
    unittest = sys.modules.get("unittest")
    return (pytest.skip.Exception, unittest.SkipTest) if unittest else (pytest.skip.Exception,)


def _reason(value: BaseException) -> str:
    return getattr(value, "msg", None) or str(value) or "no reason given"


def _refused(reason: str) -> pytest.ExceptionInfo:
    """A failure saying that the skip with ``reason`` is refused (no traceback shown)."""
    try:
        pytest.fail(PREFIX + reason, pytrace=False)
    except pytest.fail.Exception:
        return pytest.ExceptionInfo.from_current()
    raise AssertionError("unreachable")


#: Whether the run is CI's, read once when pytest starts: a test that sets or unsets ``CI``
#: (monkeypatch) changes nothing for its own report.
CI_RUN = pytest.StashKey[bool]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[CI_RUN] = in_ci()
    # pyproject.toml registers the marker for this project; a suite of its own (the tests of
    # this plugin) gets it here.
    if not any(line.split(":")[0].split("(")[0].strip() == MARKER for line in config.getini("markers")):
        config.addinivalue_line("markers", MARKER_HELP)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A skip of a setup, a test or a teardown becomes a failure with its reason in CI: the
    call's exception is swapped before pytest makes the report (as its unittest support
    swaps ``unittest.SkipTest``), so the report is an ordinary failure."""
    refused = (item.config.stash.get(CI_RUN, False) and call.excinfo is not None
               and isinstance(call.excinfo.value, _skip_exceptions()) and item.get_closest_marker(MARKER) is None)
    if refused:
        call.excinfo = _refused(_reason(call.excinfo.value))
    report = yield
    if refused:
        report.ci_skip_refused = True
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport):
    """A refused skip counts as failed (not as an error) in the setup too."""
    if getattr(report, "ci_skip_refused", False) and report.failed:
        return "failed", "F", "FAILED"
    return None


class CollectionSkip(pytest.Item):
    """The failing test that stands in CI for a module skipped while it was collected."""

    def __init__(self, *, reason: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.reason = reason

    def runtest(self) -> None:
        pytest.fail(PREFIX + self.reason + " (the whole module was skipped while collected)", pytrace=False)

    def reportinfo(self):
        return self.path, None, f"{self.parent.name} skipped while collected"


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    report = yield
    if report.outcome != "skipped" or not collector.config.stash.get(CI_RUN, False):
        return report
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    reason = reason.removeprefix("Skipped: ")
    item = CollectionSkip.from_parent(collector, name=COLLECTION_SKIP, reason=reason)
    return pytest.CollectReport(report.nodeid, "passed", None, [item], sections=report.sections)
