"""What an edition of the shared task is: its languages, splits, files and presets.

An :class:`Edition` is data, not a code path: every page, the CLI and the fetching
read an edition's entry, so adding an edition is adding an entry
(:func:`detox_core.editions.register_edition`).

Files live under ``<data dir>/<edition.folder>/``; the paths below are relative to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from detox_core import config
from detox_core.data.fetch import DataFile, FetchReport, FetchResult, default_mirrors, fetch_files
from detox_core.data.formats import load_corpus, load_lexicon
from detox_core.data.multilingual import load_multilingual_inputs, official_inputs
from detox_core.errors import DataMissingError


@dataclass(frozen=True)
class Edition:
    """One edition of the shared task.

    Attributes:
        name: registry key and default folder name (lower case, no spaces).
        title: how pages name it, with its languages.
        short: a short name for tight places.
        languages: ISO codes of its languages.
        splits: split -> candidate corpus files, best first (a test split with
            references before one without).
        files: what ``fetch-data`` puts in the folder, with each file's public homes.
        lexicon: a toxic word list, or None.
        references: how many references an input has, in words.
        outputs: the folder of system outputs (``<system>_<split>.txt``), or None.
        human: the human judgements file, or None.
        judged_pairs: a meta-evaluation sample's pairs file (``id``, ``system``, ``lang``,
            ``toxic_sentence``, ``neutral_sentence``) that judge files name by ``id``, or None.
        judges: LLM-judge label files (one per judge, its stem the judge's name): of the
            ``judged_pairs``, or of the human-judged rows when they carry their own texts.
        leaderboard: the published leaderboard file, or None.
        published: the published tables shown beside local submissions, title -> file
            (per-language tables: ``team``, a column per language, averages, ranks; or
            per-axis tables: ``team``, ``lang``, axis columns), the official one first.
        averages: the official averages over languages, name (as the published tables
            name it) -> its languages; the ranking is by the first.
        presets: its metric presets, the official one first.
        ranking: how the edition ranks systems, in words.
        homes: where its data come from (name -> URL), for people.
        system_aliases: output-file stem -> the name its system has in the edition's papers.
        trains_embedded: its train split and lexicon train the offline embedded preset.
        held_out: files of test texts besides the ``test`` split's (test inputs published apart,
            people's marks on the test inputs): with the test split, the judged samples and the
            human judgements, what :mod:`detox_core.editions.held_out` keeps from every training set.
        multilingual: its corpus files are multilingual inputs (``toxic_sentence``, ``lang``,
            references in ``neutral_sentence``), its submissions CodaLab TSVs.
        folder: the folder under the data directory (default: ``name``).
        mirror: the folder of ``../shared/data`` that mirrors its files (default: ``folder``).
        human_systems: output-file stem -> that system's human J on the test split, for the
            systems whose test outputs ship: what a preset's system-level agreement with
            people is measured against (:mod:`detox_core.analysis.preset_agreement`).
        human_systems_source: where those numbers come from, in words.
        official_chrf: the system-level chrF its official script reports (a key of
            :data:`detox_core.metrics.chrf.CORPUS_CHRF`), shown beside the sentence chrF, or None.
    """

    name: str
    title: str
    short: str
    languages: tuple[str, ...]
    splits: dict[str, tuple[str, ...]]
    files: tuple[DataFile, ...] = ()
    lexicon: str | None = None
    references: str = ""
    outputs: str | None = None
    human: str | None = None
    judged_pairs: str | None = None
    judges: tuple[str, ...] = ()
    leaderboard: str | None = None
    published: dict[str, str] = field(default_factory=dict)
    averages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    presets: tuple[str, ...] = ("embedded",)
    ranking: str = "mean J over sentences"
    homes: dict[str, str] = field(default_factory=dict)
    system_aliases: dict[str, str] = field(default_factory=dict)
    trains_embedded: bool = False
    held_out: tuple[str, ...] = ()
    multilingual: bool = False
    folder: str = ""
    mirror: str = ""
    official_chrf: str | None = None
    human_systems: dict[str, float] = field(default_factory=dict)
    human_systems_source: str = ""

    # ------------------------------------------------------------------ where its files are

    def root(self, data_root: Path | None = None) -> Path:
        """The edition's folder under the data directory."""
        return (data_root or config.data_dir()) / (self.folder or self.name)

    def path(self, rel: str, data_root: Path | None = None) -> Path:
        """A file of the edition (present or not)."""
        return self.root(data_root) / rel

    def optional(self, rel: str | None, data_root: Path | None = None) -> Path | None:
        """A file of the edition when it is declared and present, else None."""
        if rel is None:
            return None
        path = self.path(rel, data_root)
        return path if path.is_file() else None

    @property
    def official_preset(self) -> str | None:
        """The preset of the edition's own official evaluation (the first of ``presets``),
        or None for an edition without presets: only its numbers are "official"."""
        return self.presets[0] if self.presets else None

    def human_path(self, data_root: Path | None = None) -> Path | None:
        """The human judgements file when it has been fetched."""
        return self.optional(self.human, data_root)

    def leaderboard_path(self, data_root: Path | None = None) -> Path | None:
        """The published leaderboard file when it has been fetched."""
        return self.optional(self.leaderboard, data_root)

    def published_paths(self, data_root: Path | None = None) -> dict[str, Path]:
        """The fetched files of :attr:`published`, title -> path, in the entry's order."""
        paths = {title: self.optional(rel, data_root) for title, rel in self.published.items()}
        return {title: path for title, path in paths.items() if path is not None}

    def split_path(self, split: str, root: Path | None = None) -> Path:
        """The best available file of ``split``; raises DataMissingError if none."""
        base = self.root(root)
        for rel in self.splits[split]:
            if (base / rel).is_file():
                return base / rel
        raise DataMissingError(
            f"{self.title}: no file for split '{split}' in {base} (looked for "
            f"{', '.join(self.splits[split])}). Run `python -m detox_core fetch-data`."
        )

    def available_splits(self, root: Path | None = None) -> list[str]:
        out = []
        for split in self.splits:
            try:
                self.split_path(split, root)
                out.append(split)
            except DataMissingError:
                pass
        return out

    def output_files(self, split: str, root: Path | None = None) -> list[Path]:
        """System outputs of ``split`` shipped with the edition (``<system>_<split>.txt``, or
        ``.tsv`` for a multilingual edition), sorted by name."""
        if self.outputs is None:
            return []
        folder = self.path(self.outputs, root)
        suffix = ".tsv" if self.multilingual else ".txt"  # CodaLab TSVs, or one output per line
        return sorted(folder.glob(f"*_{split}{suffix}")) if folder.is_dir() else []

    # ------------------------------------------------------------------ reading and fetching

    def load(self, splits: Sequence[str] | None = None, root: Path | None = None) -> pd.DataFrame:
        """The chosen splits (default: all), concatenated.

        Raises:
            DataMissingError: a requested split has not been fetched.
        """
        load = load_multilingual_inputs if self.multilingual else load_corpus
        frames = []
        for split in splits or list(self.splits):
            path = self.split_path(split, root)
            frame = load(path, split=split)
            official = self.root(root) / self.splits[split][-1]
            if self.multilingual and path != official and official.is_file():
                # References from another source (the hub) beside the task's own inputs: the inputs are the
                # task's, text for text (the hub's copy of a few differs, e.g. a stray quote), so that the
                # task's own files score against them.
                frame = official_inputs(frame, load(official, split=split))
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def load_lexicon(self, root: Path | None = None) -> frozenset[str]:
        """The edition's toxic lexicon, or an empty set when it has none or it is not fetched."""
        path = self.optional(self.lexicon, root)
        return load_lexicon(path) if path is not None else frozenset()

    def references_hint(self) -> str:
        """Where an edition's references come from and how to get the missing ones, in words."""
        split_files = {rel for files in self.splits.values() for rel in files}
        hub = [f for f in self.files if f.hub is not None and f.rel in split_files]  # not the hub's lexicon
        how = (f"`python -m detox_core fetch-data --edition {self.name}` with a local copy of the hub dataset "
               f"{hub[0].hub.repo_id} (in the folder `DETOX_HUB_DIR` names, or a mirror) or network access, or pick **Upload a "
               "corpus TSV** in the sidebar with a `neutral_sentence` column") if hub else (
               "pick **Upload a corpus TSV** in the sidebar with your references")
        return f"References of {self.short}: {self.references or 'none listed'}. To add them: {how}."

    def mirrors(self) -> list[Path]:
        """Where ``fetch-data`` looks for a copy of the files when no ``--mirror`` is given."""
        return default_mirrors(self.mirror or self.folder or self.name)

    def fetch(self, target: Path | None = None, mirrors: Sequence[Path] | None = None, *, download: bool = True,
              force: bool = False, timeout: float = 20.0, files: tuple[DataFile, ...] | None = None,
              progress=None) -> FetchReport:
        """Fill the edition's folder (or ``target``) with its files: from a mirror, the
        public homes or a derivation, each verified before it is moved into place.

        ``mirrors`` (default: ``$DETOX_MIRROR``, then ``../shared/data/<mirror name>``) are folders
        holding the files as the edition's own mirror does, or the folder
        that holds the editions' mirrors (one sub-folder per mirror name, as ``../shared/data``): each is looked in
        itself, then in its sub-folder of this edition's mirror name.
        ``progress(result)`` is called with each file's :class:`FetchResult`.
        """
        name = self.mirror or self.folder or self.name
        given = self.mirrors() if mirrors is None else mirrors
        mirrors = [place for m in given for place in (Path(m), Path(m) / name)]
        return fetch_files(self.files if files is None else files, Path(target) if target else self.root(),
                           mirrors, download=download, force=force, timeout=timeout, progress=progress)


__all__ = ["DataFile", "Edition", "FetchReport", "FetchResult"]
