"""Fetching the public RUSSE-2022 files into the data directory.

Every file comes from the first source that has it: a mirror directory (``--mirror``,
then ``$DETOX_MIRROR``, then ``../shared/data/russe2022`` beside the project), then
its public home on the web, then (for a few files) a derivation from another fetched
file that contains the same data. Each file is verified (row count) before it is
moved into place, so a failed or interrupted fetch never leaves a half-written file,
and a file that is already present and valid is left alone.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from detox_core.data import (
    PROJECT_ROOT,
    DetoxInputError,
    load_corpus,
    load_human_judgements,
    load_leaderboard,
    load_lexicon,
    load_lines,
    data_dir,
)

RUSSE_REPO = "https://raw.githubusercontent.com/s-nlp/russe_detox_2022"
EVAL_REPO = "https://raw.githubusercontent.com/textdetox/eval-of-detox-eval"
RUDETOX_REPO = "https://raw.githubusercontent.com/s-nlp/rudetoxifier"
HUMAN_EVAL = "human_eval_test.csv"


def _urls(repo: str, commit: str, path: str) -> tuple[str, ...]:
    # The pinned commit first (reproducible), then the default branches.
    return tuple(f"{repo}/{ref}/{path}" for ref in (commit, "main", "master"))


def _count_corpus(path: Path) -> int:
    return len(load_corpus(path))


def _count_lines(path: Path) -> int:
    text = path.read_bytes().decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return len(lines)


def _count_nonempty(path: Path) -> int:
    return len(load_lines(path))


def _count_human(path: Path) -> int:
    return len(load_human_judgements(path))


def _count_leaderboard(path: Path) -> int:
    return len(load_leaderboard(path))


def _count_lexicon_lines(path: Path) -> int:
    load_lexicon(path)  # validates
    return _count_nonempty(path)


@dataclass(frozen=True)
class DataFile:
    """One file of the dataset: where it goes, how many rows it has, where it comes from."""

    rel: str
    rows: int
    count: Callable[[Path], int]
    urls: tuple[str, ...] = ()
    derive: Callable[[Path], str] | None = None  # dataset dir -> file text
    needs: tuple[str, ...] = ()  # files `derive` reads
    note: str = ""


def _participant_output(participant: str) -> Callable[[Path], str]:
    """A participant's test outputs, in test order, from the human-evaluation file.

    The file holds each judged participant's 875 outputs in test-set order.
    """

    def derive(root: Path) -> str:
        human = load_human_judgements(root / HUMAN_EVAL)
        rows = human[human["participant_name"] == participant]
        return "\n".join(rows["neutral_sentence"]) + "\n"

    return derive


def _test_references(root: Path) -> str:
    """Test inputs with the human reference recorded in the human-evaluation file."""
    test = load_corpus(root / "test.tsv")
    human = load_human_judgements(root / HUMAN_EVAL)
    first = human["participant_name"].iloc[0]
    refs = human[human["participant_name"] == first]["neutral_sentence_reference"].tolist()
    if len(refs) != len(test):
        raise DetoxInputError(f"expected {len(test)} references, found {len(refs)}", root / HUMAN_EVAL)
    lines = ["toxic_comment\tneutral_comment1"]
    for toxic, ref in zip(test["toxic_comment"], refs):
        lines.append(f"{_tsv_field(toxic)}\t{_tsv_field(ref)}")
    return "\n".join(lines) + "\n"


def _tsv_field(value: str) -> str:
    if any(c in value for c in '\t\n"'):
        return '"' + value.replace('"', '""') + '"'
    return value


RUSSE2022_FILES: tuple[DataFile, ...] = (
    DataFile("train.tsv", 6948, _count_corpus, _urls(RUSSE_REPO, "c81369b9192fc28f27838bfb2ada61cc2081fa4f", "data/input/train.tsv")),
    DataFile("dev.tsv", 800, _count_corpus, _urls(RUSSE_REPO, "6efda7cb6256a6693415ee7d9897306cbec3cc58", "data/input/dev.tsv")),
    DataFile("test.tsv", 875, _count_corpus, _urls(RUSSE_REPO, "a69b355e089be83c0316fc311ea5d050bb0d32f8", "data/input/test.tsv")),
    DataFile(HUMAN_EVAL, 2625, _count_human, _urls(EVAL_REPO, "775d21feb5a758b12c1177d6b3a6b495bd8715b8", "dataset/test_all_metrics_russe2022.csv")),
    DataFile("test_references.tsv", 875, _count_corpus, derive=_test_references, needs=("test.tsv", HUMAN_EVAL)),
    DataFile(
        "leaderboard_published.csv", 15, _count_leaderboard,
        note="published as Tables 1 and 2 of the RUSSE-2022 findings paper, not as a file",
    ),
    DataFile("lexicon/toxic_vocab.txt", 139490, _count_lexicon_lines, _urls(RUDETOX_REPO, "d11d05c7ce1aa2fbe556c337a498ba43763e7dbd", "data/train/MAT_FINAL_with_unigram_inflections.txt")),
    DataFile("lexicon/ru_toxic_10k.txt", 10000, _count_nonempty, _urls(RUDETOX_REPO, "d11d05c7ce1aa2fbe556c337a498ba43763e7dbd", "data/test/ru_test_10k_toxic")),
    DataFile("outputs/delete_test.txt", 875, _count_lines, _urls(RUSSE_REPO, "6ea16489ca38c15d770270540b13d0f5848a8cbc", "data/output/delete_test.txt")),
    DataFile("outputs/delete_dev.txt", 800, _count_lines, _urls(RUSSE_REPO, "6efda7cb6256a6693415ee7d9897306cbec3cc58", "data/output/delete_dev.txt")),
    DataFile("outputs/t5_base_10000_test.txt", 875, _count_lines, _urls(RUSSE_REPO, "a69b355e089be83c0316fc311ea5d050bb0d32f8", "data/output/t5_base_10000_test.txt")),
    DataFile("outputs/t5_base_10000_dev.txt", 800, _count_lines, _urls(RUSSE_REPO, "f488a8e58658d34cbf8de938ef15ea7252e6c7c2", "data/output/t5_base_10000_dev.txt")),
    DataFile("outputs/ruprompts_test.txt", 875, _count_lines, _urls(RUSSE_REPO, "6ea16489ca38c15d770270540b13d0f5848a8cbc", "data/output/ruprompts_test.txt")),
    *(
        DataFile(f"outputs/{p}_test.txt", 875, _count_lines, derive=_participant_output(p), needs=(HUMAN_EVAL,))
        for p in ("anton_alexandrovich", "barracudas", "ekaterina_totmina")
    ),
    DataFile("outputs/orzhan_test.txt", 875, _count_lines, note="participant output shared with the organisers; no public file"),
)


@dataclass
class FetchResult:
    """What happened to one file."""

    rel: str
    status: str  # present | mirror | download | derived | missing | invalid
    rows: int | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in {"present", "mirror", "download", "derived"}


@dataclass
class FetchReport:
    target: Path
    results: list[FetchResult] = field(default_factory=list)

    @property
    def missing(self) -> list[FetchResult]:
        return [r for r in self.results if not r.ok]

    @property
    def ok(self) -> bool:
        return not self.missing


def default_mirrors() -> list[Path]:
    """Mirror directories looked at when no ``--mirror`` is given."""
    out = []
    if os.environ.get("DETOX_MIRROR"):
        out.append(Path(os.environ["DETOX_MIRROR"]))
    out.append(PROJECT_ROOT.parent / "shared" / "data" / "russe2022")
    return out


def _verify(spec: DataFile, path: Path) -> int:
    rows = spec.count(path)
    if rows != spec.rows:
        raise DetoxInputError(f"expected {spec.rows} rows, found {rows}", path)
    return rows


def _install(spec: DataFile, dest: Path, fill: Callable[[Path], None]) -> int:
    """Fill a temporary file beside ``dest``, verify it, then rename it into place."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        fill(tmp)
        # Verify under the real name's suffix so loaders pick the right format.
        rows = spec.count(tmp)
        if rows != spec.rows:
            raise DetoxInputError(f"expected {spec.rows} rows, found {rows}", dest.name)
        os.replace(tmp, dest)
        return rows
    finally:
        tmp.unlink(missing_ok=True)


def _download(url: str, tmp: Path, timeout: float) -> None:
    req = urllib.request.Request(url, headers={"User-Agent": "detox-dashboard"})
    with urllib.request.urlopen(req, timeout=timeout) as resp, open(tmp, "wb") as out:
        shutil.copyfileobj(resp, out)


def fetch_russe2022(
    target: Path | None = None,
    mirrors: Iterable[Path] | None = None,
    *,
    download: bool = True,
    force: bool = False,
    timeout: float = 20.0,
    files: tuple[DataFile, ...] = RUSSE2022_FILES,
    progress: Callable[[FetchResult], None] | None = None,
) -> FetchReport:
    """Fill ``target`` (default ``data/russe2022``) with the RUSSE-2022 files.

    Args:
        target: dataset directory to fill.
        mirrors: directories holding the same relative paths, tried in order.
        download: try the public URLs for files no mirror has.
        force: re-fetch files that are already present and valid.
        timeout: seconds per download attempt.
        files: the manifest (tests pass smaller ones).
        progress: called with each file's result as it is done.

    Returns:
        A report with one result per file; ``report.ok`` is False when any file is
        missing or invalid, and each such result says why.
    """
    target = Path(target) if target else data_dir() / "russe2022"
    mirrors = [Path(m) for m in (mirrors if mirrors is not None else default_mirrors())]
    mirrors = [m for m in mirrors if m.is_dir() and m.resolve() != target.resolve()]
    report = FetchReport(target)
    pending = list(files)
    # Derived files wait until what they read is in place.
    pending.sort(key=lambda s: s.derive is not None)
    for spec in pending:
        result = _fetch_one(spec, target, mirrors, download, force, timeout)
        report.results.append(result)
        if progress:
            progress(result)
    return report


def _fetch_one(spec: DataFile, target: Path, mirrors: list[Path], download: bool, force: bool, timeout: float) -> FetchResult:
    dest = target / spec.rel
    problems: list[str] = []
    if dest.is_file() and not force:
        try:
            return FetchResult(spec.rel, "present", _verify(spec, dest))
        except (DetoxInputError, UnicodeDecodeError) as err:
            problems.append(f"existing file is invalid ({err}); replacing it")
    for mirror in mirrors:
        src = mirror / spec.rel
        if not src.is_file():
            continue
        try:
            rows = _install(spec, dest, lambda tmp: shutil.copyfile(src, tmp))
            return FetchResult(spec.rel, "mirror", rows, str(src))
        except (DetoxInputError, OSError) as err:
            problems.append(f"mirror copy {src} rejected: {err}")
    if download:
        for url in spec.urls:
            try:
                rows = _install(spec, dest, lambda tmp: _download(url, tmp, timeout))
                return FetchResult(spec.rel, "download", rows, url)
            except urllib.error.HTTPError as err:
                problems.append(f"{url}: HTTP {err.code}")
            except (urllib.error.URLError, OSError, TimeoutError) as err:
                reason = getattr(err, "reason", err)
                if isinstance(reason, socket.gaierror):
                    reason = f"no network (cannot resolve {urllib.parse.urlsplit(url).hostname})"
                problems.append(f"{url}: {reason}")
                break  # the network is down: the other URLs share the host
            except DetoxInputError as err:
                problems.append(f"{url}: {err}")
    if spec.derive is not None:
        absent = [n for n in spec.needs if not (target / n).is_file()]
        if absent:
            problems.append(f"cannot derive: needs {', '.join(absent)}")
        else:
            try:
                text = spec.derive(target)
                rows = _install(spec, dest, lambda tmp: tmp.write_text(text, encoding="utf-8"))
                return FetchResult(spec.rel, "derived", rows, f"from {', '.join(spec.needs)}")
            except DetoxInputError as err:
                problems.append(f"derivation failed: {err}")
    if not spec.urls and spec.derive is None:
        problems.append(f"no public file to download ({spec.note}); copy it from a mirror with --mirror DIR")
    if not mirrors:
        problems.append("no mirror directory found")
    elif not any((m / spec.rel).is_file() for m in mirrors):
        problems.append(f"not in {', '.join(str(m) for m in mirrors)}")
    if spec.urls and not download:
        problems.append("downloads are off (--no-download)")
    status = "invalid" if dest.is_file() else "missing"
    return FetchResult(spec.rel, status, None, "; ".join(problems))
