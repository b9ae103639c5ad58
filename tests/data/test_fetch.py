"""fetch-data: sources in order, verification, atomic writes, clear reports."""

from __future__ import annotations

import dataclasses
import functools
import http.server
import os
import threading
from pathlib import Path

import pytest

from detox_core import cli
from detox_core.data.fetch import DataFile, count_corpus, count_lines
from detox_core.editions import EDITIONS
from detox_core.editions.russe2022 import FILES as RUSSE2022_FILES
from detox_core.editions.russe2022 import RUSSE2022

fetch_russe2022 = RUSSE2022.fetch

CORPUS = "toxic_comment\tneutral_comment1\nа\tб\nв\tг\n"
OUTPUT = "б\nг\n"


def manifest(urls: dict[str, tuple[str, ...]] | None = None) -> tuple[DataFile, ...]:
    urls = urls or {}
    return (
        DataFile("train.tsv", 2, count_corpus, urls.get("train.tsv", ())),
        DataFile("outputs/sys_test.txt", 2, count_lines, urls.get("outputs/sys_test.txt", ())),
    )


def make_mirror(root: Path, corpus: str = CORPUS, output: str = OUTPUT) -> Path:
    (root / "outputs").mkdir(parents=True, exist_ok=True)
    (root / "train.tsv").write_text(corpus, encoding="utf-8")
    (root / "outputs" / "sys_test.txt").write_text(output, encoding="utf-8")
    return root


def leftovers(target: Path) -> list[Path]:
    return [p for p in target.rglob("*") if p.name.endswith(".part")]


def test_copies_from_mirror_then_is_idempotent(tmp_path):
    mirror = make_mirror(tmp_path / "mirror")
    target = tmp_path / "data"
    report = fetch_russe2022(target, [mirror], download=False, files=manifest())
    assert report.ok and [r.status for r in report.results] == ["mirror", "mirror"]
    assert (target / "train.tsv").read_text(encoding="utf-8") == CORPUS
    mtime = (target / "train.tsv").stat().st_mtime_ns
    again = fetch_russe2022(target, [mirror], download=False, files=manifest())
    assert [r.status for r in again.results] == ["present", "present"]
    assert (target / "train.tsv").stat().st_mtime_ns == mtime


def test_wrong_row_count_is_rejected_and_nothing_half_written(tmp_path):
    mirror = make_mirror(tmp_path / "mirror", output="только одна строка\n")
    target = tmp_path / "data"
    report = fetch_russe2022(target, [mirror], download=False, files=manifest())
    bad = {r.rel: r for r in report.results}["outputs/sys_test.txt"]
    assert not report.ok and bad.status == "missing"
    assert "expected 2 rows, found 1" in bad.detail
    assert not (target / "outputs" / "sys_test.txt").exists()
    assert leftovers(target) == []


def test_a_valid_file_is_not_replaced_by_a_bad_source(tmp_path):
    target = make_mirror(tmp_path / "data")
    bad_mirror = make_mirror(tmp_path / "mirror", corpus="toxic_comment\nа\n")
    report = fetch_russe2022(target, [bad_mirror], download=False, force=True, files=manifest())
    assert not report.ok
    assert (target / "train.tsv").read_text(encoding="utf-8") == CORPUS


def test_invalid_existing_file_is_replaced(tmp_path):
    mirror = make_mirror(tmp_path / "mirror")
    target = make_mirror(tmp_path / "data", corpus="toxic_comment\nсломано\n")
    report = fetch_russe2022(target, [mirror], download=False, files=manifest())
    assert report.ok and report.results[0].status == "mirror"
    assert (target / "train.tsv").read_text(encoding="utf-8") == CORPUS


@pytest.fixture
def http_server(tmp_path):
    """A loopback HTTP server over a folder of files (stands in for the public hosts)."""
    root = make_mirror(tmp_path / "web")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_downloads_when_no_mirror_has_the_file(tmp_path, http_server):
    urls = {
        "train.tsv": (f"{http_server}/missing.tsv", f"{http_server}/train.tsv"),
        "outputs/sys_test.txt": (f"{http_server}/outputs/sys_test.txt",),
    }
    target = tmp_path / "data"
    report = fetch_russe2022(target, [], files=manifest(urls), timeout=5)
    assert report.ok and [r.status for r in report.results] == ["download", "download"]
    assert report.results[0].detail.endswith("/train.tsv")  # after a 404 on the first URL
    assert (target / "outputs" / "sys_test.txt").read_text(encoding="utf-8") == OUTPUT


def test_offline_without_mirror_reports_what_is_missing(tmp_path):
    # Nothing listens on port 9 of the loopback: the connection is refused at once.
    urls = {"train.tsv": ("http://127.0.0.1:9/train.tsv",)}
    report = fetch_russe2022(tmp_path / "data", [], files=manifest(urls), timeout=2)
    assert not report.ok
    by = {r.rel: r for r in report.results}
    assert "127.0.0.1:9/train.tsv" in by["train.tsv"].detail
    assert "no public file to download" in by["outputs/sys_test.txt"].detail
    assert "no mirror directory found" in by["train.tsv"].detail


def test_cli_exit_code_and_message(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(EDITIONS, "russe2022", dataclasses.replace(RUSSE2022, files=manifest()))
    target = tmp_path / "data"
    code = cli.main(["fetch-data", "--edition", "russe2022", "--target", str(target), "--mirror",
                     str(tmp_path / "nowhere"), "--no-download", "-q"])
    err = capsys.readouterr().err
    assert code == 1
    assert "could not be fetched" in err and "train.tsv" in err and "The app still starts" in err
    mirror = make_mirror(tmp_path / "mirror")
    code = cli.main(["fetch-data", "--edition", "russe2022", "--target", str(target), "--mirror", str(mirror),
                     "--no-download", "-q"])
    assert code == 0 and "2 files verified" in capsys.readouterr().out


def test_derived_files_equal_the_published_ones(real_data, tmp_path):
    """Participant outputs and test references rebuilt from the human evaluation file."""
    target = tmp_path / "data"
    target.mkdir()
    for name in ("test.tsv", "human_eval_test.csv"):
        (target / name).write_bytes((real_data / name).read_bytes())
    derived = tuple(spec for spec in RUSSE2022_FILES if spec.derive is not None)
    report = fetch_russe2022(target, [], download=False, files=derived)
    assert report.ok and {r.status for r in report.results} == {"derived"}
    for spec in derived:
        mine = (target / spec.rel).read_text(encoding="utf-8").splitlines()
        published = (real_data / spec.rel).read_text(encoding="utf-8").splitlines()
        if spec.rel.endswith(".tsv"):
            # Same records; quoting of the published file may differ.
            from detox_core.data import load_corpus

            a, b = load_corpus(target / spec.rel), load_corpus(real_data / spec.rel)
            assert a["toxic_comment"].tolist() == b["toxic_comment"].tolist()
            assert a["neutral_comment1"].tolist() == b["neutral_comment1"].tolist()
        else:
            assert mine == published, spec.rel


def test_full_fetch_from_the_mirror(real_data, tmp_path):
    mirror = Path(os.environ.get("DETOX_MIRROR", real_data))
    report = fetch_russe2022(tmp_path / "data", [mirror], download=False)
    assert report.ok, [(r.rel, r.detail) for r in report.missing]
    assert len(report.results) == len(RUSSE2022_FILES) == 19  # 17 data files and 2 optional LLM-judge files


def test_the_folder_holding_the_editions_mirrors_is_a_mirror_and_files_get_the_users_umask(tmp_path):
    """`fetch-data --mirror DIR` with DIR holding russe2022/ (as ../shared/data does) finds the
    files in the edition's sub-folder; what it writes is readable as a plain `open` makes files
    (0666 less the umask), not private to the user (0600)."""
    make_mirror(tmp_path / "mirrors" / "russe2022")
    target = tmp_path / "data"
    old = os.umask(0o022)
    try:
        report = fetch_russe2022(target, [tmp_path / "mirrors"], download=False, files=manifest())
    finally:
        os.umask(old)
    assert report.ok and [r.status for r in report.results] == ["mirror", "mirror"]
    assert (target / "train.tsv").read_text(encoding="utf-8") == CORPUS
    assert (target / "train.tsv").stat().st_mode & 0o777 == 0o644
    assert (target / "outputs" / "sys_test.txt").stat().st_mode & 0o777 == 0o644


def test_detox_mirror_may_name_the_folder_holding_the_editions_mirrors(tmp_path, monkeypatch):
    make_mirror(tmp_path / "mirrors" / "russe2022")
    monkeypatch.setenv("DETOX_MIRROR", str(tmp_path / "mirrors"))
    report = fetch_russe2022(tmp_path / "data", download=False, files=manifest())
    assert report.ok and [r.status for r in report.results] == ["mirror", "mirror"]


def test_fetch_data_builds_the_lexicons_an_installed_copy_needs(tmp_path, capsys, monkeypatch):
    """An installed copy's one data command leaves the Delete baseline's lists built in every
    language (it was off outside Russian until build-lexicons was run by hand)."""
    import shutil

    from detox_core.data import PROJECT_ROOT
    from detox_core.lexicons import load_lexicons

    here = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data")) / "textdetox2024"
    if not (here / "test_inputs.tsv").is_file():
        pytest.skip("TextDetox 2024 not fetched: run `python -m detox_core fetch-data`")
    shutil.copytree(here, tmp_path / "textdetox2024")
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    assert load_lexicons(tmp_path) == {}
    code = cli.main(["fetch-data", "--edition", "textdetox2024", "--no-download", "-q"])
    out = capsys.readouterr().out
    assert code == 0, out
    built = load_lexicons(tmp_path)
    assert {"de", "en", "uk", "zh", "am"} <= set(built) and all(built[c].words for c in ("de", "en", "uk"))
    assert f"lexicons built in {tmp_path / 'lexicons'}" in out
    # Asked not to, it leaves them as they are.
    shutil.rmtree(tmp_path / "lexicons")
    assert cli.main(["fetch-data", "--edition", "textdetox2024", "--no-download", "-q", "--no-lexicons"]) == 0
    assert load_lexicons(tmp_path) == {}
