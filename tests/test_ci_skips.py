"""With CI=true a skipped test fails with its reason (tests/ci_skips.py): a small suite of
its own, run with the plugin with and without CI, says what is refused and what is left."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

PREFIX = "CI=true: this test may not be skipped: "

SUITE = {
    "test_inner": """
        import pytest

        @pytest.fixture
        def chromium():
            pytest.skip("Chromium is not installed")

        def test_passes():
            pass

        def test_skips_in_the_test():
            pytest.skip("no offline mirror of the data")

        def test_skips_in_a_fixture(chromium):
            pass

        @pytest.mark.skipif(True, reason="pdflatex is not installed")
        def test_skipif_mark():
            pass

        def test_importorskip_in_the_test():
            pytest.importorskip("no_such_module_here_at_all")

        @pytest.mark.ci_may_skip(reason="the mirror has no such treebank, by design")
        def test_allowed():
            pytest.skip("no treebank sentences for hin")

        @pytest.mark.parametrize("lang", ["en", pytest.param("hin", marks=pytest.mark.ci_may_skip(reason="by design"))])
        def test_allowed_parameter(lang):
            if lang == "hin":
                pytest.skip("no treebank sentences for hin")
            pytest.skip(f"no treebank sentences for {lang}")

        @pytest.mark.xfail(reason="a known bug", strict=True)
        def test_expected_failure():
            assert False

        def test_imperative_xfail():
            pytest.xfail("not there yet")
    """,
    "test_module_mark": """
        import pytest

        pytestmark = pytest.mark.skipif(True, reason="nginx is not installed")

        def test_one():
            pass

        def test_two():
            pass
    """,
    "test_module_skip": """
        import pytest

        pytest.skip("the model of meaning does not run here", allow_module_level=True)

        def test_never_collected():
            pass
    """,
    "test_module_importorskip": """
        import pytest

        pytest.importorskip("no_such_module_either")

        def test_never_collected():
            pass
    """,
}


def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None) -> pytest.RunResult:
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    pytester.makepyfile(**SUITE)
    # The inner suite loads the plugin as tests/conftest.py does; -v gives each test's outcome,
    # -rA the reasons.
    return pytester.runpytest_inprocess("-p", "tests.ci_skips", "-v", "-rA", "-p", "no:cacheprovider")


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """``{test id: outcome}`` from the verbose lines (``test_x.py::test_y PASSED [ 10%]``)."""
    got = {}
    for line in result.outlines:
        parts = line.split()
        if len(parts) >= 2 and "::" in parts[0] and parts[1] in ("PASSED", "FAILED", "SKIPPED", "XFAIL", "ERROR"):
            got[parts[0]] = parts[1]
    return got


def test_without_ci_the_skips_stay_skips(pytester, monkeypatch):
    result = run(pytester, monkeypatch, None)
    result.assert_outcomes(passed=1, skipped=11, xfailed=2)
    assert PREFIX not in result.stdout.str()
    result.stdout.fnmatch_lines(["*SKIPPED*Chromium is not installed*"])
    result.stdout.fnmatch_lines(["*SKIPPED*the model of meaning does not run here*"])
    assert result.ret == 0


def test_with_ci_a_skip_fails_with_its_reason(pytester, monkeypatch):
    result = run(pytester, monkeypatch, "true")
    # Refused: the test's, the fixture's, the mark's and importorskip's skips, the module's
    # skipif (two tests), the other parameter, and each module skipped while collected.
    result.assert_outcomes(passed=1, failed=9, skipped=2, xfailed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    got = outcomes(result)
    for test, reason in [
        ("test_inner.py::test_skips_in_the_test", "no offline mirror of the data"),
        ("test_inner.py::test_skips_in_a_fixture", "Chromium is not installed"),
        ("test_inner.py::test_skipif_mark", "pdflatex is not installed"),
        ("test_inner.py::test_importorskip_in_the_test", "could not import 'no_such_module_here_at_all'"),
        ("test_inner.py::test_allowed_parameter[en]", "no treebank sentences for en"),
        ("test_module_mark.py::test_one", "nginx is not installed"),
        ("test_module_mark.py::test_two", "nginx is not installed"),
        ("test_module_skip.py::collection_skip", "the model of meaning does not run here"),
        ("test_module_importorskip.py::collection_skip", "could not import 'no_such_module_either'"),
    ]:
        assert got[test] == "FAILED", (test, got)
        assert any(line.startswith(f"FAILED {test} - ") and PREFIX + reason in line for line in result.outlines), test
    # Failures, not errors, wherever the skip came from (the setup included).
    assert "ERROR" not in got.values()
    # Marked ci_may_skip: still a skip; xfail is left alone.
    assert got["test_inner.py::test_allowed"] == "SKIPPED"
    assert got["test_inner.py::test_allowed_parameter[hin]"] == "SKIPPED"
    assert got["test_inner.py::test_expected_failure"] == got["test_inner.py::test_imperative_xfail"] == "XFAIL"
    assert got["test_inner.py::test_passes"] == "PASSED"


def test_with_ci_a_skip_fails_under_two_workers_too(pytester, monkeypatch):
    """``make test`` runs the suite on two workers (pytest-xdist): the plugin's hooks run in the
    workers, and what they report counts as failed in the main process, with its reason."""
    from detox_core.config import PROJECT_ROOT

    monkeypatch.setenv("PYTHONPATH", str(PROJECT_ROOT))  # the workers import tests.ci_skips
    monkeypatch.setenv("CI", "true")
    pytester.makepyfile(**SUITE)
    result = pytester.runpytest_subprocess("-p", "tests.ci_skips", "-n", "2", "--dist", "loadfile", "-rA",
                                           "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=9, skipped=2, xfailed=2)
    summary = [line for line in result.outlines if line.startswith("FAILED ")]
    assert any("test_skips_in_a_fixture" in line and PREFIX + "Chromium is not installed" in line for line in summary)
    assert any("test_module_skip.py::collection_skip" in line and PREFIX in line for line in summary)


def test_any_value_of_ci_counts_and_an_empty_one_does_not(pytester, monkeypatch):
    """As pytest reads ``CI`` (and the project's other checks of it): set means set."""
    pytester.makepyfile(test_one="import pytest\n\ndef test_it():\n    pytest.skip('no data')\n")
    monkeypatch.setenv("CI", "1")
    pytester.runpytest_inprocess("-p", "tests.ci_skips").assert_outcomes(failed=1)
    monkeypatch.setenv("CI", "")
    pytester.runpytest_inprocess("-p", "tests.ci_skips").assert_outcomes(skipped=1)


def test_the_helpers_read_ci_as_the_require_variables(monkeypatch):
    from tests.ci_skips import in_ci, required

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("DETOX_REQUIRE_POSTGRES", raising=False)
    assert not in_ci() and not required("DETOX_REQUIRE_POSTGRES")
    monkeypatch.setenv("DETOX_REQUIRE_POSTGRES", "1")
    assert required("DETOX_REQUIRE_POSTGRES")
    monkeypatch.setenv("DETOX_REQUIRE_POSTGRES", "0")
    assert not required("DETOX_REQUIRE_POSTGRES")
    monkeypatch.setenv("CI", "true")
    assert in_ci() and required("DETOX_REQUIRE_POSTGRES") and required("DETOX_REQUIRE_DEPLOY")
