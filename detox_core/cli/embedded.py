"""The embedded preset's commands: ``train-embedded`` (the corpus models, then a fit on
people's judgements, leaving each system out, and the preset's agreement with people) and
``agreement`` (presets' agreement with people, what ranking pages state)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from detox_core import config, data
from detox_core.analysis import agreement
from detox_core.analysis.embedded_fit import fit_from_judgements
from detox_core.cli.args import add_json_option, emit_json
from detox_core.editions import training_edition
from detox_core.embedded.fitted import fitted_model, judgements_digest
from detox_core.embedded.recipe import train_embedded
from detox_core.errors import DetoxError, EmbeddedMissingError
from detox_core.metrics.base import signature_text
from detox_core.metrics.registry import get_preset, has_calibration, preset_names


def _say(msg: str) -> None:
    print(f"train-embedded: {msg}", file=sys.stderr)


def _cmd_train_embedded(args: argparse.Namespace) -> int:
    try:
        folder = train_embedded(Path(args.data_dir) if args.data_dir else None, force=args.force, step=_say)
    except EmbeddedMissingError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if args.data_dir and Path(args.data_dir).resolve() != config.data_dir().resolve():
        args.no_agreement = True  # measured on the app's data folder only
    status = after_training(args, folder)
    print(folder)
    return status


def _add_train_options(train: argparse.ArgumentParser) -> None:
    train.add_argument("--judgements", metavar="FILE",
                       help="human judgements to learn from (humaneval_textdetox_ru schema: the shipped RUSSE-2022 "
                            "human evaluation, an annotation project's `export-annotations`, your own file); "
                            "default: the training edition's human evaluation when it is there")
    train.add_argument("--no-judgements", action="store_true", help="the corpus models only: fit nothing on people")
    train.add_argument("--no-agreement", action="store_true",
                       help="do not measure the preset's agreement with people afterwards (about 15 s)")


def after_training(args: argparse.Namespace, folder: Path) -> int:
    """Fit on the judgements (when there are any) and measure agreement; 0, or 1 with a message."""
    judgements = None
    if not args.no_judgements:
        if args.judgements:
            judgements = Path(args.judgements)
        else:
            edition = training_edition()
            path = edition.path(edition.human, folder.parent.parent) if edition.human else None
            judgements = path if path is not None and path.is_file() else None
    if judgements is not None:
        try:
            judged = data.load_human_judgements(judgements)
        except DetoxError as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        done = fitted_model(folder)
        if done is not None and done.digest == judgements_digest(judged) and not args.force:
            _say(f"already fitted on {judgements.name} ({'used' if done.used else 'not used, the recipe scores'}: "
                 f"{done.reason})")
        else:
            fit_from_judgements(judged, source=judgements.name, folder=folder, say=_say)
    else:
        _say("no human judgements given: nothing fitted on people")
    if not args.no_agreement and agreement.measurable_editions():
        result = None if args.force else agreement.stored("embedded")
        if result is None:
            _say("measuring the embedded preset's agreement with people")
            result = agreement.measure("embedded")
        _say(f"agreement: {result.sentence()}; {result.system()}")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    if not agreement.measurable_editions():
        print("error: no edition ships human judgements with its judged systems' outputs", file=sys.stderr)
        return 1
    presets, found = args.preset or ["embedded"], []
    for name in presets:
        calibrated = not args.raw or not has_calibration(name)
        result = agreement.measure(name, calibrated=calibrated)
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
    train = sub.add_parser("train-embedded", help="train the offline models of the embedded preset")
    train.add_argument("--data-dir", metavar="DIR", help="data folder (default: data/ or $DETOX_DATA_DIR)")
    train.add_argument("--force", action="store_true", help="train again even when the models exist")
    _add_train_options(train)
    train.set_defaults(func=_cmd_train_embedded)

    ag = sub.add_parser("agreement", help="measure presets' agreement with people (what ranking pages state)")
    ag.add_argument("--preset", action="append", choices=preset_names(), help="repeatable (default: embedded)")
    ag.add_argument("--raw", action="store_true", help="uncalibrated scores, for presets with a calibration")
    add_json_option(ag)
    ag.set_defaults(func=cmd_agreement)
