"""Fetching an edition's public files into the data directory.

An edition (:mod:`detox_core.editions`) lists its files as :class:`DataFile` entries.
Every file comes from the first source that has it: a mirror directory (``--mirror``,
then ``$DETOX_MIRROR``, then ``../shared/data/<edition>`` beside the project), then
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

from detox_core import config
from detox_core.data.formats import load_corpus, load_human_judgements, load_leaderboard, load_lexicon, load_lines
from detox_core.data.hub_datasets import HubSource
from detox_core.data.io import decode_utf8, give_user_mode, parse_table
from detox_core.data.multilingual import load_multilingual_inputs
from detox_core.errors import DataMissingError, DetoxInputError


def pinned_urls(repo: str, commit: str, path: str) -> tuple[str, ...]:
    """A file's raw URLs in a GitHub repository: at ``commit``, then on main and master."""
    # The pinned commit first (reproducible), then the default branches.
    return tuple(f"{repo}/{ref}/{path}" for ref in (commit, "main", "master"))


def count_corpus(path: Path) -> int:
    return len(load_corpus(path))


def count_lines(path: Path) -> int:
    text = path.read_bytes().decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return len(lines)


def count_nonempty(path: Path) -> int:
    return len(load_lines(path))


def count_multilingual(path: Path) -> int:
    return len(load_multilingual_inputs(path))


def count_by_language(expected: dict[str, int]):
    """A counter of multilingual inputs that also checks each language's rows: the file's
    rows when every language of ``expected`` has its number, else an error naming them."""
    def count(path: Path) -> int:
        frame = load_multilingual_inputs(path)
        found = frame["lang"].value_counts().to_dict()
        wrong = [f"{lang}: {found.get(lang, 0)} instead of {n}" for lang, n in expected.items() if found.get(lang, 0) != n]
        wrong += [f"{lang}: {n} rows, not a language of this file" for lang, n in found.items() if lang not in expected]
        if wrong:
            raise DetoxInputError("rows per language differ: " + "; ".join(wrong), path)
        return len(frame)
    return count


def count_table_rows(path: Path) -> int:
    """Records of a CSV/TSV file (its header excluded), parsed strictly."""
    return len(parse_table(decode_utf8(path.read_bytes(), str(path)), str(path)).rows)


def count_human(path: Path) -> int:
    return len(load_human_judgements(path))


def count_leaderboard(path: Path) -> int:
    return len(load_leaderboard(path))


def count_lexicon_lines(path: Path) -> int:
    load_lexicon(path)  # validates
    return count_nonempty(path)


@dataclass(frozen=True)
class DataFile:
    """One file of the dataset: where it goes, how many rows it has, where it comes from."""

    rel: str
    rows: int | None  # None: any number (a hub dataset that grows), still parsed by ``count``
    count: Callable[[Path], int]
    urls: tuple[str, ...] = ()
    derive: Callable[[Path], str] | None = None  # dataset dir -> file text
    needs: tuple[str, ...] = ()  # files `derive` reads
    note: str = ""
    hub: HubSource | None = None  # a hub dataset the file is made from
    mirrored_as: str = ""  # its path in a mirror folder, when not ``rel``
    optional: bool = False  # the edition works without it (pages say what it would add)

    @property
    def mirror_rel(self) -> str:
        return self.mirrored_as or self.rel


@dataclass
class FetchResult:
    """What happened to one file."""

    rel: str
    status: str  # present | mirror | download | hub | derived | missing | invalid
    rows: int | None = None
    detail: str = ""
    optional: bool = False

    @property
    def ok(self) -> bool:
        return self.status in {"present", "mirror", "download", "derived", "hub"}


@dataclass
class FetchReport:
    target: Path
    results: list[FetchResult] = field(default_factory=list)

    @property
    def missing(self) -> list[FetchResult]:
        """Required files that could not be had."""
        return [r for r in self.results if not r.ok and not r.optional]

    @property
    def skipped(self) -> list[FetchResult]:
        """Optional files that could not be had (the edition works without them)."""
        return [r for r in self.results if not r.ok and r.optional]

    @property
    def ok(self) -> bool:
        return not self.missing


def default_mirrors(folder: str) -> list[Path]:
    """Mirror directories looked at when no ``--mirror`` is given: ``$DETOX_MIRROR``,
    then ``../shared/data/<folder>`` beside the project."""
    return [*config.mirror_dirs(), config.SHARED_MIRRORS / folder]


def _verify(spec: DataFile, path: Path) -> int:
    rows = spec.count(path)
    if spec.rows is not None and rows != spec.rows:
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
        if spec.rows is not None and rows != spec.rows:
            raise DetoxInputError(f"expected {spec.rows} rows, found {rows}", dest.name)
        give_user_mode(tmp)
        os.replace(tmp, dest)
        return rows
    finally:
        tmp.unlink(missing_ok=True)


def _download(url: str, tmp: Path, timeout: float) -> None:
    req = urllib.request.Request(url, headers={"User-Agent": "detox-dashboard"})
    with urllib.request.urlopen(req, timeout=timeout) as resp, open(tmp, "wb") as out:
        shutil.copyfileobj(resp, out)


def fetch_files(
    files: tuple[DataFile, ...],
    target: Path,
    mirrors: Iterable[Path],
    *,
    download: bool = True,
    force: bool = False,
    timeout: float = 20.0,
    progress: Callable[[FetchResult], None] | None = None,
) -> FetchReport:
    """Fill ``target`` with ``files`` (an edition's manifest, see
    :meth:`detox_core.editions.Edition.fetch`).

    Args:
        target: dataset directory to fill.
        mirrors: directories holding the same relative paths, tried in order.
        download: try the public URLs for files no mirror has.
        force: re-fetch files that are already present and valid.
        timeout: seconds per download attempt.
        files: the manifest.
        progress: called with each file's result as it is done.

    Returns:
        A report with one result per file; ``report.ok`` is False when any required
        file is missing or invalid, and each such result says why (optional files that
        could not be had are ``report.skipped``).
    """
    target = Path(target)
    mirrors = [Path(m) for m in mirrors]
    mirrors = [m for m in mirrors if m.is_dir() and m.resolve() != target.resolve()]
    report = FetchReport(target)
    pending = list(files)
    # Derived files wait until what they read is in place.
    pending.sort(key=lambda s: s.derive is not None)
    for spec in pending:
        result = _fetch_one(spec, target, mirrors, download, force, timeout)
        result.optional = spec.optional
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
        src = mirror / spec.mirror_rel
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
    if spec.hub is not None:
        try:
            text = spec.hub.tsv(mirrors, allow_download=download)
            rows = _install(spec, dest, lambda tmp: tmp.write_text(text, encoding="utf-8"))
            return FetchResult(spec.rel, "hub", rows, spec.hub.repo_id)
        except (DataMissingError, DetoxInputError) as err:
            problems.append(str(err))
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
    if not spec.urls and spec.derive is None and spec.hub is None:
        problems.append(f"no public file to download ({spec.note}); copy it from a mirror with --mirror DIR")
    if not mirrors:
        problems.append("no mirror directory found")
    elif not any((m / spec.mirror_rel).is_file() for m in mirrors):
        problems.append(f"not in {', '.join(str(m) for m in mirrors)}")
    if spec.urls and not download:
        problems.append("downloads are off (--no-download)")
    status = "invalid" if dest.is_file() else "missing"
    return FetchResult(spec.rel, status, None, "; ".join(problems))
