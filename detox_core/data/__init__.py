"""Data contracts: reading files with precise errors, and the loaders of every format.

- :mod:`.io`: bytes and text, strict CSV/TSV with line numbers, atomic writes;
- :mod:`.formats`: corpus, submission, human judgements, published leaderboard, lexicon;
- :mod:`.fetch`: fetching a list of files from mirrors, public homes or derivations.

Which files exist (an edition's splits, outputs, judgements) is said by
:mod:`detox_core.editions`; where they live by :func:`detox_core.config.data_dir`.
"""

from detox_core.config import PROJECT_ROOT, data_dir
from detox_core.data.formats import (
    PARAPHRASE_COLUMNS,
    load_corpus,
    load_human_judgements,
    load_leaderboard,
    load_lexicon,
    load_lines,
    load_submission,
    references,
)
from detox_core.data.io import MAX_FILE_BYTES, Source, Table, decode_utf8, parse_table, read_text, write_text_atomic
from detox_core.errors import DataMissingError, DetoxInputError

__all__ = [
    "MAX_FILE_BYTES", "PROJECT_ROOT", "PARAPHRASE_COLUMNS", "DataMissingError", "DetoxInputError", "Source", "Table",
    "data_dir", "decode_utf8", "load_corpus", "load_human_judgements", "load_leaderboard", "load_lexicon",
    "load_lines", "load_submission", "parse_table", "read_text", "references", "write_text_atomic",
]
