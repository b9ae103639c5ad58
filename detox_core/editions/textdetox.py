"""TextDetox 2024 and 2025, the multilingual detoxification shared tasks at PAN/CLEF
(Dementieva et al., 2024; 2025), and the 2025 nine-language meta-evaluation sample
(Protasov et al., 2025).

Inputs, sample submissions, the meta-evaluation sample with its LLM judges and the
published tables come from the offline mirror ``../shared/data/textdetox`` (copied from
``pan-webis-de/pan-code`` and ``textdetox/eval-of-detox-eval``, see its README); the
references exist only on the Hugging Face hub (``textdetox/multilingual_paradetox``),
read from a local copy or downloaded. Systems are ranked by the mean over languages of J.

Both entries register themselves when :mod:`detox_core.editions` is imported.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from detox_core.data.fetch import DataFile, count_by_language, count_lines, count_table_rows, pinned_urls
from detox_core.data.hub_datasets import HubSource
from detox_core.data.io import parse_table, read_text, require_columns
from detox_core.data.judge_labels import load_pairs
from detox_core.editions.base import Edition
from detox_core.editions.registry import register_edition
from detox_core.languages.training_data import STS_LANGUAGES
from detox_core.languages import TEXTDETOX2024, TEXTDETOX2025, in_edition, new_in

MIRROR = "textdetox"
#: The languages of each edition, from the table of languages.
LANGUAGES_2024 = in_edition(TEXTDETOX2024)
NEW_IN_2025 = new_in(TEXTDETOX2025, TEXTDETOX2024)
JUDGES = ("gpt-4.1-mini", "gpt-4.1-mini_fewshot", "gpt-4.1-nano", "judgelm_llama_31_8b_ckpt_ep2_merged",
          "llama_31_8b_tuned")
REFERENCES = HubSource("textdetox/multilingual_paradetox", ("toxic_sentence", "neutral_sentence"))
#: The toxic lexicon of the task's organisers, one split per language with a ``text`` column;
#: ``build-lexicons`` adds its words to each language's list when it has been fetched.
HUB_LEXICON = DataFile("lexicon/hub_toxic_lexicon.tsv", None, count_table_rows,
                       hub=HubSource("textdetox/multilingual_toxic_lexicon", ("text",)), optional=True,
                       note="on the Hugging Face hub only")
#: What the embedded preset's heads learn from (detox_core.metrics.embedded.training): the task's
#: toxicity data in 15 languages, and English ParaDetox's crowd rewrites.
TOXICITY = DataFile("training/toxicity.tsv", None, count_table_rows,
                    hub=HubSource("textdetox/multilingual_toxicity_dataset", ("text", "toxic"), flatten=True),
                    optional=True,
                    note="on the Hugging Face hub only")
# 11,936 lines: the header and 11,935 rows (some cells hold quote marks that are not CSV quoting)
PARADETOX = DataFile("training/paradetox.tsv", 11936, count_lines, mirrored_as="../paradetox/paradetox.tsv",
                     urls=("https://raw.githubusercontent.com/s-nlp/paradetox/d97b17d08135/paradetox/paradetox.tsv",),
                     optional=True, note="English ParaDetox (s-nlp/paradetox), OpenRAIL++")
#: Sentence pairs people scored 0-5 for sameness of meaning (the STS Benchmark, machine-translated
#: with the English scores carried over; JSTS, written and scored in Japanese), training splits
#: only: the embedded preset's SIM learns graded meaning from them.
STSB_COMMIT = "30de0dec4ee199b7f42351d3f1a0b19592955385"
STS = tuple(
    DataFile(f"training/sts/stsb-{lang}-train.csv", 5749, count_lines, mirrored_as=f"../sts/stsb-{lang}-train.csv",
             urls=(f"https://raw.githubusercontent.com/PhilipMay/stsb-multi-mt/{STSB_COMMIT}/data/stsb-{lang}-train.csv",),
             optional=True, note="STS Benchmark, multilingual (PhilipMay/stsb-multi-mt), CC BY-SA 4.0")
    for lang in STS_LANGUAGES
) + (
    DataFile("training/sts/jsts-train.json", 12451, count_lines, mirrored_as="../sts/jsts-train.json",
             urls=("https://raw.githubusercontent.com/yahoojapan/JGLUE/6f071c09316baae89c3d083a90985b4b1cb9968c/"
                   "datasets/jsts-v1.3/train-v1.3.json",),
             optional=True, note="JSTS of JGLUE (yahoojapan/JGLUE), CC BY-SA 4.0"),
)
#: More toxic -> neutral rewrites: an LLM's rewrite beside the crowd's of English ParaDetox's
#: inputs (a second neutral text of the same input), and people's civil Hindi rewrites.
REWRITES = (
    DataFile("training/rewrites/pseudoparadetox_llama3_8b_en.csv", 19753, count_lines,
             mirrored_as="../rewrites/pseudoparadetox_llama3_8b_en.csv",
             urls=("https://raw.githubusercontent.com/s-nlp/pseudoparadetox/3eae79e8c2ad193c0b6d8380f613eb66757772b7/"
                   "datasets/llama3_8b_baseline_gen_t02_p09_10shot_en_detox_part.csv",),
             optional=True, note="PseudoParaDetox (s-nlp/pseudoparadetox), Apache-2.0"),
    DataFile("training/rewrites/panlingua_hi_parallel.csv", 510, count_lines,
             mirrored_as="../rewrites/panlingua_hi_parallel.csv",
             urls=("https://raw.githubusercontent.com/panlingua/multilingual_text_detoxification-datasets/"
                   "616a2bc8be25c9a2e2e5262bf83c4ea2088eb7b5/hindi/hi_parallel_detoxification.test.csv",),
             optional=True, note="Hindi parallel detoxification (panlingua), MIT"),
)
#: The toxic words people marked in the 2024 test inputs (shown on the Corpus page; never
#: trained or tuned on: they are the meta-evaluation sample's inputs).
TOXIC_SPANS = DataFile("toxic_spans.tsv", None, count_table_rows,
                       hub=HubSource("textdetox/multilingual_toxic_spans", ("Sentence", "Negative Connotations"),
                                     names=("toxic_sentence", "toxic_words")),
                       optional=True, note="on the Hugging Face hub only")


PAN_CODE = "https://raw.githubusercontent.com/pan-webis-de/pan-code"


def _mirrored(rel: str, rows: int, count, source: str, note: str = "", urls: tuple[str, ...] = (),
              optional: bool = False, derive=None, needs: tuple[str, ...] = ()) -> DataFile:
    """A file of the offline mirror (at ``source`` there), with its public URLs when the task
    published it as a file; ``optional`` for what the edition works without (published
    tables, the meta-evaluation sample: copied into the mirror from web pages and papers)."""
    return DataFile(rel, rows, count, urls=urls, mirrored_as=source, optional=optional, derive=derive, needs=needs,
                    note=note or "copied into the offline mirror from its public home (the mirror's README names it)")


def _inputs_of(submission: str):
    def derive(root: Path) -> str:
        """The inputs of a sample submission (the task published its inputs that way)."""
        text, label = read_text(root / submission)
        table = parse_table(text, label, "\t")
        cols = require_columns(table, ["toxic_sentence", "lang"])
        return _tsv(("toxic_sentence", "lang"), zip(table.column(cols["toxic_sentence"]), table.column(cols["lang"])))
    return derive


PAIRS = "meta_eval/pairs.tsv"
#: The six systems of the meta-evaluation sample (their outputs for the same 80 test inputs per language).
SAMPLE_SYSTEMS = ("SomethingAwful", "Team_SINAI", "VitalyProtasov", "ZhongyuLuo", "backtranslation_baseline",
                  "gleb.shnshn")


def _tsv(header: tuple[str, ...], rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def _sample_inputs(root: Path) -> str:
    """The sample's 720 test inputs (80 per language), in their first order, as a split."""
    pairs = load_pairs(root / PAIRS)
    seen = dict.fromkeys(zip(pairs["toxic_sentence"], pairs["lang"]))
    return _tsv(("toxic_sentence", "lang"), seen)


def _sample_output(system: str):
    def derive(root: Path) -> str:
        """One system's outputs of the sample as a CodaLab submission of the ``sample`` split."""
        pairs = load_pairs(root / PAIRS)
        rows = pairs[pairs["system"] == system]
        return _tsv(("toxic_sentence", "neutral_sentence", "lang"),
                    zip(rows["toxic_sentence"], rows["neutral_sentence"], rows["lang"]))
    return derive


_META_EVAL = (
    _mirrored("meta_eval/pairs.tsv", 4320, count_table_rows, "textdetoxeval/pairs.tsv", optional=True),
    *(_mirrored(f"meta_eval/llm_judgements/{judge}.tsv", 4320, count_table_rows,
                f"textdetoxeval/llm_judgements/{judge}.tsv", optional=True) for judge in JUDGES),
    # The sample as a split of its own, with each system's outputs as a submission of it.
    DataFile("sample_inputs.tsv", 720, count_by_language(dict.fromkeys(LANGUAGES_2024, 80)), derive=_sample_inputs,
             needs=(PAIRS,), optional=True),
    *(DataFile(f"outputs/{system}_sample.tsv", 720, count_table_rows, derive=_sample_output(system), needs=(PAIRS,),
               optional=True)
      for system in SAMPLE_SYSTEMS),
)

TEXTDETOX2024 = register_edition(Edition(
    name=TEXTDETOX2024,
    title="TextDetox 2024 (9 languages)",
    short="TextDetox 2024",
    languages=LANGUAGES_2024,
    # The development inputs with their references when the hub's copy has been fetched.
    splits={"dev": ("dev_references.tsv", "dev_inputs.tsv"), "test": ("test_inputs.tsv",),
            # The 2025 meta-evaluation sample: 80 test inputs per language, six systems' outputs, five LLM judges.
            "sample": ("sample_inputs.tsv",)},
    files=(
        _mirrored("dev_inputs.tsv", 3600, count_by_language(dict.fromkeys(LANGUAGES_2024, 400)),
                  "textdetox2024/dev_inputs.tsv",
                  derive=_inputs_of("outputs/duplicate_dev.tsv"), needs=("outputs/duplicate_dev.tsv",)),
        _mirrored("test_inputs.tsv", 5400, count_by_language(dict.fromkeys(LANGUAGES_2024, 600)),
                  "textdetox2024/test_inputs.tsv",
                  derive=_inputs_of("outputs/duplicate_test.tsv"), needs=("outputs/duplicate_test.tsv",)),
        _mirrored("outputs/duplicate_dev.tsv", 3600, count_table_rows, "textdetox2024/outputs/duplicate_dev.tsv",
                  urls=pinned_urls(PAN_CODE, "b92c6d13202689429f475ec1ef162da3b0f8bb81",
                                   "clef24/text-detoxification/data/sample_submission_dev.tsv")),
        _mirrored("outputs/duplicate_test.tsv", 5400, count_table_rows, "textdetox2024/outputs/duplicate_test.tsv",
                  urls=pinned_urls(PAN_CODE, "a44aee5527b3faf4b46e84b85ae2be33f28df601",
                                   "clef24/text-detoxification/data/sample_submission_test.tsv")),
        DataFile("dev_references.tsv", 3600, count_by_language(dict.fromkeys(LANGUAGES_2024, 400)), hub=REFERENCES,
                 optional=True),
        _mirrored("leaderboard_auto.csv", 35, count_table_rows, "leaderboards/textdetox2024_auto.csv", optional=True),
        _mirrored("leaderboard_auto_axes.csv", 175, count_table_rows, "leaderboards/textdetox2024_auto_axes.csv", optional=True),
        _mirrored("leaderboard_human.csv", 21, count_table_rows, "leaderboards/textdetox2024_human.csv", optional=True),
        _mirrored("leaderboard_human_axes.csv", 175, count_table_rows, "leaderboards/textdetox2024_human_axes.csv", optional=True),
        *_META_EVAL,
        HUB_LEXICON,
        PARADETOX,
        *STS,
        *REWRITES,
        TOXIC_SPANS,
    ),
    references="development inputs: one each, on the hub (textdetox/multilingual_paradetox); test: none public",
    outputs="outputs",
    judged_pairs="meta_eval/pairs.tsv",
    # people's marks of toxic words in the test inputs
    held_out=(TOXIC_SPANS.rel,),
    judges=tuple(f"meta_eval/llm_judgements/{judge}.tsv" for judge in JUDGES),
    leaderboard="leaderboard_auto.csv",
    published={
        "Human evaluation (final ranking)": "leaderboard_human.csv",
        "Human evaluation, per axis": "leaderboard_human_axes.csv",
        "Automatic evaluation (test)": "leaderboard_auto.csv",
        "Automatic evaluation, per axis": "leaderboard_auto_axes.csv",
    },
    averages={"avg": LANGUAGES_2024},
    presets=("textdetox2024", "embedded"),
    ranking="the mean over the 9 languages of J on the test set; the final ranking by human J",
    homes={
        "inputs and sample submissions": "https://github.com/pan-webis-de/pan-code/tree/master/clef24/text-detoxification",
        "references": "https://huggingface.co/datasets/textdetox/multilingual_paradetox",
        "meta-evaluation sample and LLM judges": "https://github.com/textdetox/eval-of-detox-eval",
        "results": "https://pan.webis.de/clef24/pan24-web/text-detoxification.html",
    },
    multilingual=True,
    mirror=MIRROR,
))

TEXTDETOX2025 = register_edition(Edition(
    name=TEXTDETOX2025,
    title="TextDetox 2025 (15 languages)",
    short="TextDetox 2025",
    languages=in_edition(TEXTDETOX2025),
    splits={"dev": ("dev_inputs.tsv",), "test": ("test_inputs.tsv",)},
    files=(
        _mirrored("dev_inputs.tsv", 6000,
                  count_by_language({**dict.fromkeys(LANGUAGES_2024, 600), **dict.fromkeys(NEW_IN_2025, 100)}),
                  "textdetox2025/dev_inputs.tsv",
                  urls=pinned_urls(PAN_CODE, "6759354578fcdcb022ffdbdd3eb2c84cdb4fc3eb",
                                   "clef25/text-detoxification/input_data/dev_inputs.tsv")),
        _mirrored("test_inputs.tsv", 3600, count_by_language(dict.fromkeys(LANGUAGES_2024, 400)),
                  "textdetox2025/test_inputs.tsv",
                  note="the 9 languages of 2024; the new languages' test inputs are on the hub "
                  "(textdetox/multilingual_paradetox_test)",
                  urls=pinned_urls(PAN_CODE, "baabcc46fe99c8eae4c8e542130e4b50104afb37",
                                   "clef25/text-detoxification/input_data/test_inputs.tsv")),
        _mirrored("outputs/duplicate_dev.tsv", 6000, count_table_rows, "textdetox2025/outputs/duplicate_dev.tsv",
                  urls=pinned_urls(PAN_CODE, "baabcc46fe99c8eae4c8e542130e4b50104afb37",
                                   "clef25/text-detoxification/sample_submissions/dev_duplicate.tsv")),
        _mirrored("leaderboard_auto.csv", 15, count_table_rows, "leaderboards/textdetox2025_auto.csv", optional=True),
        _mirrored("leaderboard_llmjudge.csv", 32, count_table_rows, "leaderboards/textdetox2025_llmjudge.csv", optional=True),
        # The new languages' test inputs, published on the hub only.
        DataFile("test_inputs_new.tsv", 3600, count_by_language(dict.fromkeys(NEW_IN_2025, 600)),
                 hub=HubSource("textdetox/multilingual_paradetox_test", ("text",), splits=NEW_IN_2025,
                               names=("toxic_sentence",)),
                 optional=True, note="on the Hugging Face hub only"),
        HUB_LEXICON,
        TOXICITY,
    ),
    references="on the hub only; the new languages' development inputs have none public",
    # the new languages' test inputs, published apart from the test split's file
    held_out=("test_inputs_new.tsv",),
    outputs="outputs",
    leaderboard="leaderboard_llmjudge.csv",
    published={
        "LLM judge (final ranking)": "leaderboard_llmjudge.csv",
        "Automatic evaluation (test)": "leaderboard_auto.csv",
    },
    averages={"avg_p": LANGUAGES_2024, "avg_np": NEW_IN_2025},
    # The official 2025 recipe (CLS-NEW, SIM-JOINED, xCOMET-lite fluency), then 2024's for comparison.
    presets=("textdetox2025", "textdetox2024", "embedded"),
    ranking="the mean over the 9 languages of 2024 and, apart, over the 6 new ones; final by an LLM judge",
    homes={
        "inputs and sample submissions": "https://github.com/pan-webis-de/pan-code/tree/master/clef25/text-detoxification",
        "test inputs of the new languages": "https://huggingface.co/datasets/textdetox/multilingual_paradetox_test",
        "results": "https://pan.webis.de/clef25/pan25-web/text-detoxification.html",
    },
    multilingual=True,
    mirror=MIRROR,
))
