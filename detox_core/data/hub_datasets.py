"""Datasets published only on the Hugging Face hub (the TextDetox references and test
inputs), read from a local copy laid out like the hub repository or downloaded.

A hub dataset repository holds ``data/<split>-NNNNN-of-NNNNN[-hash].parquet`` files, one
split per language for the TextDetox datasets. A local copy is looked for, in order, in
each mirror folder and in ``$DETOX_HUB_DIR`` as ``<org>__<name>/`` (the same layout), and
only then downloaded through ``huggingface_hub`` when the hub answers.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from detox_core import config
from detox_core.errors import DataMissingError, DetoxInputError
from detox_core.models.origin import hub_reachable

_SPLIT_FILE = re.compile(r"^(?P<split>[A-Za-z_]+)-\d{5}-of-\d{5}(?:-[0-9a-f]+)?\.parquet$")


def local_name(repo_id: str) -> str:
    """``textdetox/multilingual_paradetox`` -> ``textdetox__multilingual_paradetox``."""
    return repo_id.replace("/", "__")


def find_local_copy(repo_id: str, mirrors: Iterable[Path] = ()) -> Path | None:
    """A folder laid out like the hub repository: in a mirror, else under ``$DETOX_HUB_DIR``."""
    roots = [*mirrors, *([config.hub_dir()] if config.hub_dir() else [])]
    for root in roots:
        folder = Path(root) / local_name(repo_id)
        if (folder / "data").is_dir():
            return folder
    return None


def download(repo_id: str, revision: str | None = None) -> Path:
    """The repository's parquet files from the hub at ``revision`` (a commit, tag or branch;
    None: the default branch), kept in the hub client's cache.

    Raises:
        DataMissingError: the hub cannot be reached, or refused the download.
    """
    if not hub_reachable():
        raise DataMissingError(f"{repo_id}: the Hugging Face hub cannot be reached (no network) and no local copy "
                               f"was found; put one in a mirror folder or in $DETOX_HUB_DIR as "
                               f"{local_name(repo_id)}/data/*.parquet")
    from huggingface_hub import snapshot_download  # noqa: PLC0415 - the client loads only when a download runs

    try:
        return Path(snapshot_download(repo_id, repo_type="dataset", revision=revision,
                                      allow_patterns=["data/*.parquet"]))
    except Exception as err:  # noqa: BLE001 - every client failure is said the same way
        raise DataMissingError(f"{repo_id}: the hub refused the download ({str(err).splitlines()[0][:200]})") from err


def read_splits(folder: Path, splits: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
    """Split -> rows of a local copy's parquet files (all splits, or those asked for).

    Raises:
        DataMissingError: an asked-for split has no file.
    """
    files: dict[str, list[Path]] = {}
    for path in sorted((Path(folder) / "data").glob("*.parquet")):
        m = _SPLIT_FILE.match(path.name)
        if m:
            files.setdefault(m.group("split"), []).append(path)
    wanted = list(splits) if splits is not None else sorted(files)
    missing = [s for s in wanted if s not in files]
    if missing:
        raise DataMissingError(f"{folder}: no parquet file for split(s) {', '.join(missing)}")
    return {s: pd.concat([pd.read_parquet(p) for p in files[s]], ignore_index=True) for s in wanted}


def language_tsv(splits: dict[str, pd.DataFrame], columns: Sequence[str], source: str,
                 names: Sequence[str] | None = None, flatten: bool = False) -> str:
    """One TSV of per-language splits: ``columns`` then ``lang`` (the split's name),
    written with proper quoting.

    Raises:
        DetoxInputError: a split without one of ``columns``.
    """
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow([*(names or columns), "lang"])
    for lang, frame in splits.items():
        absent = [c for c in columns if c not in frame]
        if absent:
            raise DetoxInputError(f"split {lang!r} has no column {', '.join(absent)} (it has "
                                  f"{', '.join(map(str, frame.columns))})", source)
        for row in frame[list(columns)].itertuples(index=False):
            cells = ["" if v is None else str(v) for v in row]
            if flatten:
                if any("\t" in c for c in cells):
                    continue  # a cell holding tab separators is several rows run together
                cells = [" ".join(c.split()) for c in cells]
            writer.writerow(cells + [lang])
    return out.getvalue()


@dataclass(frozen=True)
class HubSource:
    """A file of an edition made from a hub dataset: its per-language splits as one TSV.

    Attributes:
        repo_id: the dataset repository (``textdetox/multilingual_paradetox``).
        columns: the columns to keep, in order (``lang`` is added from the split name).
        splits: the splits (languages) to read; None for all.
        names: the columns' names in the file written (None: as in the dataset).
        flatten: one line per row: line breaks inside a cell become spaces, and a row
            with a tab inside a cell (several rows run together) is left out.
        revision: the hub commit (or tag) to download; None: the default branch. Either way a
            file the offline heads train on is checked against its pinned SHA-256 before any
            training (:func:`detox_core.metrics.embedded.training.check_pins`).
    """

    repo_id: str
    columns: tuple[str, ...]
    splits: tuple[str, ...] | None = None
    names: tuple[str, ...] | None = None
    flatten: bool = False
    revision: str | None = None

    def tsv(self, mirrors: Iterable[Path] = (), allow_download: bool = True) -> str:
        """The file's text, from a local copy, else from the hub.

        Raises:
            DataMissingError: no local copy and no download (off, or no network).
            DetoxInputError: the copy lacks a column.
        """
        folder = find_local_copy(self.repo_id, mirrors)
        if folder is None:
            if not allow_download:
                raise DataMissingError(f"{self.repo_id}: no local copy ({local_name(self.repo_id)}/data/*.parquet in a "
                                       "mirror or $DETOX_HUB_DIR) and downloads are off")
            folder = download(self.repo_id, self.revision)
        return language_tsv(read_splits(folder, self.splits), self.columns, str(folder), self.names, self.flatten)
