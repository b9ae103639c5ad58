"""An app process's log rotates (deploy/run.sh pipes it through detox_core.deployment.logpipe):
a flood of lines fills a bounded amount of disk, every line kept whole."""

from __future__ import annotations

import subprocess
import sys


def test_a_flood_of_lines_fills_at_most_keep_plus_one_files(tmp_path):
    log = tmp_path / "app-1.log"
    line = b"ERROR a client hung up " + b"x" * 1000 + b"\n"
    flood = line * 3200  # 3.3 MB
    subprocess.run([sys.executable, "-m", "detox_core.deployment.logpipe", str(log), "--max-mb", "1", "--keep", "2"],
                   input=flood, check=True, timeout=60)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["app-1.log", "app-1.log.1", "app-1.log.2"]
    sizes = [(tmp_path / f).stat().st_size for f in files]
    assert all(s <= 1024 * 1024 + len(line) for s in sizes)
    for f in files:  # whole lines only
        assert set((tmp_path / f).read_bytes().split(b"\n")[:-1]) == {line[:-1]}
    # The newest lines are in the current file; a restart appends to it.
    subprocess.run([sys.executable, "-m", "detox_core.deployment.logpipe", str(log), "--max-mb", "1", "--keep", "2"],
                   input=b"started again\n", check=True, timeout=60)
    assert log.read_bytes().endswith(b"started again\n")


def test_bad_limits_are_refused():
    done = subprocess.run([sys.executable, "-m", "detox_core.deployment.logpipe", "x.log", "--max-mb", "0"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--max-mb" in done.stderr
