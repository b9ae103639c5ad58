"""RUSSE-2022, the first Russian detoxification shared task (Dementieva et al., 2022).

Its inputs (train 6,948 / dev 800 / test 875) and outputs come from
``s-nlp/russe_detox_2022``; the crowd judgements of the test outputs with the original
metrics' scores from ``textdetox/eval-of-detox-eval``; the toxic lexicons from
``s-nlp/rudetoxifier``. The published leaderboard (Tables 1 and 2 of the findings
paper) is not a file anywhere: the offline mirror holds it. Systems are ranked by J on
the test set with the official 2022 recipe; the final ranking is by human J.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from detox_core.data.fetch import (
    DataFile,
    count_corpus,
    count_human,
    count_leaderboard,
    count_lexicon_lines,
    count_lines,
    count_nonempty,
    count_table_rows,
    pinned_urls,
)
from detox_core.data.formats import load_corpus, load_human_judgements
from detox_core.editions.base import Edition
from detox_core.editions.registry import register_edition
from detox_core import languages
from detox_core.errors import DetoxInputError

RUSSE_REPO = "https://raw.githubusercontent.com/s-nlp/russe_detox_2022"
EVAL_REPO = "https://raw.githubusercontent.com/textdetox/eval-of-detox-eval"
RUDETOX_REPO = "https://raw.githubusercontent.com/s-nlp/rudetoxifier"
HUMAN_EVAL = "human_eval_test.csv"
LLM_JUDGES = ("llm_judgements/gpt-4.1-mini_few_shot.tsv", "llm_judgements/llama-3.3-70b-instruct.tsv")


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


FILES: tuple[DataFile, ...] = (
    DataFile("train.tsv", 6948, count_corpus, pinned_urls(RUSSE_REPO, "c81369b9192fc28f27838bfb2ada61cc2081fa4f", "data/input/train.tsv")),
    DataFile("dev.tsv", 800, count_corpus, pinned_urls(RUSSE_REPO, "6efda7cb6256a6693415ee7d9897306cbec3cc58", "data/input/dev.tsv")),
    DataFile("test.tsv", 875, count_corpus, pinned_urls(RUSSE_REPO, "a69b355e089be83c0316fc311ea5d050bb0d32f8", "data/input/test.tsv")),
    DataFile(HUMAN_EVAL, 2625, count_human, pinned_urls(EVAL_REPO, "775d21feb5a758b12c1177d6b3a6b495bd8715b8", "dataset/test_all_metrics_russe2022.csv")),
    DataFile("test_references.tsv", 875, count_corpus, derive=_test_references, needs=("test.tsv", HUMAN_EVAL)),
    DataFile(
        "leaderboard_published.csv", 15, count_leaderboard,
        note="published as Tables 1 and 2 of the RUSSE-2022 findings paper, not as a file",
    ),
    DataFile("lexicon/toxic_vocab.txt", 139490, count_lexicon_lines, pinned_urls(RUDETOX_REPO, "d11d05c7ce1aa2fbe556c337a498ba43763e7dbd", "data/train/MAT_FINAL_with_unigram_inflections.txt")),
    DataFile("lexicon/ru_toxic_10k.txt", 10000, count_nonempty, pinned_urls(RUDETOX_REPO, "d11d05c7ce1aa2fbe556c337a498ba43763e7dbd", "data/test/ru_test_10k_toxic")),
    DataFile("outputs/delete_test.txt", 875, count_lines, pinned_urls(RUSSE_REPO, "6ea16489ca38c15d770270540b13d0f5848a8cbc", "data/output/delete_test.txt")),
    DataFile("outputs/delete_dev.txt", 800, count_lines, pinned_urls(RUSSE_REPO, "6efda7cb6256a6693415ee7d9897306cbec3cc58", "data/output/delete_dev.txt")),
    DataFile("outputs/t5_base_10000_test.txt", 875, count_lines, pinned_urls(RUSSE_REPO, "a69b355e089be83c0316fc311ea5d050bb0d32f8", "data/output/t5_base_10000_test.txt")),
    DataFile("outputs/t5_base_10000_dev.txt", 800, count_lines, pinned_urls(RUSSE_REPO, "f488a8e58658d34cbf8de938ef15ea7252e6c7c2", "data/output/t5_base_10000_dev.txt")),
    DataFile("outputs/ruprompts_test.txt", 875, count_lines, pinned_urls(RUSSE_REPO, "6ea16489ca38c15d770270540b13d0f5848a8cbc", "data/output/ruprompts_test.txt")),
    *(
        DataFile(f"outputs/{p}_test.txt", 875, count_lines, derive=_participant_output(p), needs=(HUMAN_EVAL,))
        for p in ("anton_alexandrovich", "barracudas", "ekaterina_totmina")
    ),
    DataFile("outputs/orzhan_test.txt", 875, count_lines, note="participant output shared with the organisers; no public file"),
    # LLM-judge labels of the human-evaluation rows of five systems (textdetox/eval-of-detox-eval,
    # vizualize/models_to_plot/russe2022/, as TSV in the offline mirror).
    *(DataFile(rel, 4375, count_table_rows, optional=True, note="LLM-judge labels, from the offline mirror")
      for rel in LLM_JUDGES),
)


RUSSE2022 = register_edition(Edition(
    name=languages.RUSSE2022,
    title="RUSSE-2022 (Russian)",
    short="RUSSE-2022",
    languages=languages.in_edition(languages.RUSSE2022),
    splits={
        "train": ("train.tsv",),
        "dev": ("dev.tsv",),
        # The test inputs with their reference when it has been fetched.
        "test": ("test_references.tsv", "test.tsv"),
    },
    files=FILES,
    lexicon="lexicon/toxic_vocab.txt",
    references="1-3 per input (test: 1 public, from the human evaluation file)",
    outputs="outputs",
    human=HUMAN_EVAL,
    judges=LLM_JUDGES,
    leaderboard="leaderboard_published.csv",
    presets=("russe2022", "embedded"),
    ranking="J on the test set with the official 2022 recipe; the final ranking by human J",
    homes={
        "inputs and outputs": "https://github.com/s-nlp/russe_detox_2022",
        "human judgements": "https://github.com/textdetox/eval-of-detox-eval",
        "lexicons": "https://github.com/s-nlp/rudetoxifier",
        "findings paper": "https://www.dialog-21.ru/media/5759/dementievadplusetal105.pdf",
    },
    # Shipped output names whose system appears under another name in the paper.
    system_aliases={"t5_base_10000": "rut5", "ruprompts": "ruprompts", "delete": "delete"},
    trains_embedded=True,
    # evaluation/ru_detoxification_evaluation.py: corpus_chrf(neutral_references, rewritten) of nltk;
    # the published table's ChrF column.
    official_chrf="nltk-corpus",
    human_systems={"t5_base_10000": 0.61, "orzhan": 0.56, "ruprompts": 0.525, "barracudas": 0.51,
                   "anton_alexandrovich": 0.504, "ekaterina_totmina": 0.45, "delete": 0.16},
    # orzhan, ruprompts and the three judged systems: the 2025 metrics study's crowd evaluation
    # (textdetox/humaneval_textdetox_ru, not mirrored; the three systems' values are their mean J in
    # human_eval_test.csv); the t5 and Delete baselines: the findings paper's Table 2 (which has 0.49
    # for the ruPrompts baseline: another campaign).
    human_systems_source=("human J on the 875 test inputs: the 2025 metrics study's crowd evaluation "
                          "(textdetox/humaneval_textdetox_ru) for orzhan, ruprompts and the three systems of "
                          "human_eval_test.csv (their mean J there), the findings paper's Table 2 for the t5 and "
                          "Delete baselines"),
))
