"""A hung test fails with its stack, within the bound pyproject.toml sets, instead of taking
CI's whole time (pytest-timeout, installed by requirements-test.txt)."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from detox_core.data import PROJECT_ROOT


def test_every_test_has_a_time_bound_above_the_longest_one():
    options = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    # The longest test took 434 s on CI's two cores; the bound leaves it room, and CI's 90 minutes.
    assert 600 <= int(options["timeout"]) <= 1800


def test_a_hung_test_fails_with_its_stack(tmp_path):
    hung = tmp_path / "test_hung.py"
    hung.write_text("import time\n\ndef test_waits_forever():\n    time.sleep(600)\n", encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\ntimeout = 2\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(hung)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Timeout" in run.stdout and "test_waits_forever" in run.stdout and "time.sleep(600)" in run.stdout
