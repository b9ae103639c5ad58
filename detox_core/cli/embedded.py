"""The embedded preset's commands: ``train-embedded`` (its heads trained from the data folder;
``--ship``: the shipped heads rebuilt from the pinned data, then measured against people) and
``agreement`` (presets' agreement with people, what ranking pages state) and ``ceilings`` (Live
scoring's "unrelated" check, measured from the pinned data and shipped)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

import json

import numpy as np

from detox_core import config, data
from detox_core.analysis import preset_agreement, preset_agreement_by_language
from detox_core.analysis.meta_eval import scorer_identity
from detox_core.cli.args import add_json_option, emit_json, written
from detox_core.editions import training_edition
from detox_core.models import meaning
from detox_core.metrics.embedded.heads import META, agreement_sample, forget, rebuilt_folder, shipped_folder
from detox_core.metrics.embedded.training import PINS_FILE, file_digests, read_files, train_heads
from detox_core.errors import DataMissingError, DetoxInputError, UsageError
from detox_core.metrics.base import signature_text
from detox_core.metrics.registry import PRESETS, get_preset, has_calibration, preset_names
from detox_core.stats.agreement import roc_auc
from detox_core.live.best import SHIPPED_FILE as SHIPPED_CEILINGS, ship_ceilings



def _say(msg: str) -> None:
    print(f"train-embedded: {msg}", file=sys.stderr)


def measure_on_people(folder: Path, root: Path) -> dict | None:
    """Per axis and J, the ROC-AUC of the heads in ``folder`` against people on the RUSSE-2022
    human sample (a held-out set: reported, never trained or chosen on), or None without it."""
    edition = training_edition()
    path = edition.optional(edition.human, root)
    if path is None:
        return None
    human = data.load_human_judgements(path)
    refs = [[r] if isinstance(r, str) and r.strip() else [] for r in human["neutral_sentence_reference"]]
    preset = PRESETS["embedded"](folder=folder, langs=["ru"] * len(human))
    frame = preset.score(human["toxic_sentence"].tolist(), human["neutral_sentence"].tolist(), refs)
    out: dict = {"pairs": len(human)}
    for axis, column in (("sta", "non-toxicity"), ("sim", "content"), ("fl", "fluency"), ("j", "J")):
        out[axis] = round(roc_auc(frame[axis].to_numpy(np.float64), human[column].to_numpy(float)), 4)
    return out


def _cmd_train_embedded(args: argparse.Namespace) -> int:
    if not 0 < args.fraction <= 1:
        raise UsageError(f"--fraction must be above 0 and at most 1, found {args.fraction}")
    if args.ship and (args.heads_out or args.fraction != 1.0):
        raise UsageError("--ship rebuilds the shipped heads from all the pinned data: without --heads-out and --fraction")
    if args.pin and not args.ship:
        raise UsageError("--pin records the data folder's files as the shipped heads' pins: with --ship")
    root = Path(args.data_dir) if args.data_dir else config.data_dir()
    out = shipped_folder() if args.ship else Path(args.heads_out) if args.heads_out else \
        root / "models" / rebuilt_folder().name
    try:
        if args.pin:
            _write_pins(root)
        train_heads(root, out, fraction=args.fraction, say=_say, pinned=args.ship)
    except (DataMissingError, DetoxInputError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except meaning.MeaningUnavailableError as err:
        print(f"error: {err}", file=sys.stderr)
        return 3
    forget(out)
    if args.ship:
        measured = measure_on_people(out, root)
        if measured is not None:
            _say(f"against people ({agreement_sample()}, {measured['pairs']:,} pairs): ROC-AUC "
                 + ", ".join(f"{k.upper()} {measured[k]:.3f}" for k in ("sta", "sim", "fl", "j")))
            meta = json.loads((out / META).read_text(encoding="utf-8"))
            meta["agreement"] = {agreement_sample(): measured}
            (out / META).write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    else:
        _say(f"these heads score only when named: DETOX_HEADS_DIR={out} (the shipped heads score otherwise)")
    print(out)
    return 0


def _cmd_ceilings(args: argparse.Namespace) -> int:
    root = Path(args.data_dir) if args.data_dir else config.data_dir()
    try:
        measured = ship_ceilings(root, say=lambda msg: print(msg, file=sys.stderr))
    except meaning.MeaningUnavailableError as err:
        print(f"error: {err}", file=sys.stderr)
        return 3
    if not measured:
        print("error: no language has 20 training inputs in the data folder: run `detox fetch-data`", file=sys.stderr)
        return 1
    written(SHIPPED_CEILINGS)
    return 0


def _write_pins(root: Path) -> None:
    """Record the SHA-256 of every file training reads as the pins (a deliberate change of data)."""
    digests = file_digests(root, read_files(root))
    absent = [rel for rel, sha in digests.items() if sha == "absent"]
    if absent:
        raise DataMissingError(f"cannot pin files that are not there: {', '.join(absent)}; run `detox fetch-data`")
    path = Path(__file__).resolve().parent.parent / "metrics" / "embedded" / PINS_FILE
    path.write_text(json.dumps({"files": digests}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    _say(f"pinned {len(digests)} files in {path.name}")


def _ship_agreement() -> int:
    """Measure the embedded preset on RUSSE-2022 and per language on TextDetox 2024 and write
    the figures every server states (:data:`detox_core.analysis.preset_agreement.SHIPPED_FILE`)."""
    edition = preset_agreement_by_language.measurable_edition()
    if edition is None or not preset_agreement.measurable_editions():
        raise DataMissingError("the judged samples are not in the data folder: run `detox fetch-data`")
    russian = preset_agreement.measure("embedded", calibrated=True)
    languages = preset_agreement_by_language.measure("embedded", calibrated=True)
    figures = {"preset": "embedded", "identity": scorer_identity("embedded", None, None),
               "russian": asdict(russian), "languages": asdict(languages)}
    path = preset_agreement.SHIPPED_FILE
    path.write_text(json.dumps(figures, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    print(f"agreement: embedded: {russian.system()}; per language: "
         + ", ".join(f"{c} {f.spearman[0]:+.2f}" for c, f in languages.figures.items()), file=sys.stderr)
    written(path)
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    if args.ship:
        return _ship_agreement()
    if not preset_agreement.measurable_editions():
        print("error: no edition ships human judgements with its judged systems' outputs", file=sys.stderr)
        return 1
    presets, found = args.preset or ["embedded"], []
    for name in presets:
        calibrated = not args.raw or not has_calibration(name)
        result = preset_agreement.measure(name, calibrated=calibrated)
        found.append((name, calibrated, result))
        if args.json:
            continue
        weak = " (weak: the ranking may not be people's)" if result.weak else ""
        print(f"{name}: {result.sentence()}; {result.system()}{weak}")
        for system, j in result.system_j.items():
            print(f"  {system:<24} preset J {j:.3f}   human J {result.human_j[system]:.3f}")
    if args.json:
        emit_json({"command": "agreement", "presets": [_agreement_json(n, c, r) for n, c, r in found]})
    return 0


def _agreement_json(name: str, calibrated: bool, result) -> dict:
    """A preset's agreement with people, and the signature of the scores it was measured on
    (``calibrated``: what was asked; whether a calibration applied is the signature's)."""
    sig = get_preset(name).signature(calibrated)
    return {
        "preset": name, "calibrated": sig.calibrated, "edition": result.edition, "languages": result.languages,
        "judged_pairs": result.n_pairs, "roc_auc": dict(zip(("value", "low", "high"), result.auc)),
        "systems": result.n_systems, "spearman": dict(zip(("value", "low", "high"), result.spearman)),
        "weak": result.weak, "held_out": result.held_out,
        "system_j": {s: {"preset": j, "human": result.human_j.get(s)} for s, j in result.system_j.items()},
        "signature": signature_text(sig.as_dict(),
                                    edition=result.edition, measured="roc-auc+spearman"),
    }


def add_commands(sub) -> None:
    train = sub.add_parser("train-embedded",
                           help="rebuild the embedded preset's heads from the data folder (they ship trained)")
    train.add_argument("--data-dir", metavar="DIR", help="data folder (default: data/ or $DETOX_DATA_DIR)")
    train.add_argument("--heads-out", metavar="DIR",
                       help="where the heads go (default: the data folder's models/heads-N); they score only where "
                            "DETOX_HEADS_DIR names them")
    train.add_argument("--fraction", type=float, default=1.0, metavar="F",
                       help="train on this share of every source (default 1: all)")
    train.add_argument("--ship", action="store_true",
                       help="rebuild the shipped heads (detox_core/metrics/embedded/trained/) from the pinned data, checked by "
                            "SHA-256 first, then measure them against people (`make heads`)")
    train.add_argument("--pin", action="store_true",
                       help="with --ship: first record the data folder's files as the new pins (after a deliberate "
                            "change of the data)")
    train.add_argument("--no-agreement", action="store_true",
                       help="kept for scripts: the agreement is measured with --ship only")
    train.set_defaults(func=_cmd_train_embedded)

    ceil = sub.add_parser("ceilings", help="measure how far apart two different toxic inputs of each language are "
                          "(Live scoring's 'unrelated' check) and write the shipped figures (`make heads`)")
    ceil.add_argument("--data-dir", metavar="DIR", help="data folder (default: data/ or $DETOX_DATA_DIR)")
    ceil.set_defaults(func=_cmd_ceilings)

    ag = sub.add_parser("agreement", help="measure presets' agreement with people (what ranking pages state)")
    ag.add_argument("--preset", action="append", choices=preset_names(), help="repeatable (default: embedded)")
    ag.add_argument("--raw", action="store_true", help="uncalibrated scores, for presets with a calibration")
    ag.add_argument("--ship", action="store_true",
                    help="measure the embedded preset (RUSSE-2022, and TextDetox 2024 per language) and write the "
                         "figures every server states (detox_core/metrics/embedded/agreement.json), after `make heads`")
    add_json_option(ag)
    ag.set_defaults(func=cmd_agreement)
