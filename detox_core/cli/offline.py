"""The embedded preset's commands: ``train-embedded`` (its heads rebuilt from the data folder,
then the preset's agreement with people) and ``agreement`` (presets' agreement with people,
what ranking pages state)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from detox_core import config
from detox_core.analysis import preset_agreement
from detox_core.cli.args import add_json_option, emit_json
from detox_core.models import meaning
from detox_core.offline.heads import rebuilt_folder
from detox_core.offline.heads_training import train_heads
from detox_core.errors import DataMissingError, UsageError
from detox_core.metrics.base import signature_text
from detox_core.metrics.registry import get_preset, has_calibration, preset_names


def _say(msg: str) -> None:
    print(f"train-embedded: {msg}", file=sys.stderr)


def _cmd_train_embedded(args: argparse.Namespace) -> int:
    if not 0 < args.fraction <= 1:
        raise UsageError(f"--fraction must be above 0 and at most 1, found {args.fraction}")
    root = Path(args.data_dir) if args.data_dir else config.data_dir()
    out = Path(args.heads_out) if args.heads_out else root / "models" / rebuilt_folder().name
    try:
        train_heads(root, out, fraction=args.fraction, say=_say)
    except DataMissingError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except meaning.MeaningUnavailableError as err:
        print(f"error: {err}", file=sys.stderr)
        return 3
    print(out)
    if args.data_dir and root.resolve() != config.data_dir().resolve():
        args.no_agreement = True  # measured on the app's data folder only
    if args.heads_out:
        args.no_agreement = True  # the heads that score were not changed
    if not args.no_agreement and preset_agreement.measurable_editions():
        _say("measuring the embedded preset's agreement with people")
        result = preset_agreement.measure("embedded")
        _say(f"agreement: {result.sentence()}; {result.system()}")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
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
                       help="where the heads go (default: the data folder's models/heads-N, which then score "
                            "instead of the shipped heads)")
    train.add_argument("--fraction", type=float, default=1.0, metavar="F",
                       help="train on this share of every source (default 1: all)")
    train.add_argument("--no-agreement", action="store_true",
                       help="do not measure the preset's agreement with people afterwards")
    train.set_defaults(func=_cmd_train_embedded)

    ag = sub.add_parser("agreement", help="measure presets' agreement with people (what ranking pages state)")
    ag.add_argument("--preset", action="append", choices=preset_names(), help="repeatable (default: embedded)")
    ag.add_argument("--raw", action="store_true", help="uncalibrated scores, for presets with a calibration")
    add_json_option(ag)
    ag.set_defaults(func=cmd_agreement)
