"""What the commands share: argparse types, output paths checked before any work, the
model and calibrator options, and progress bars on stderr."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path

from tqdm import tqdm

from detox_core.errors import UsageError
from detox_core.calibration import fitted as fitted_calibration
from detox_core.metrics import bertscore

#: Presets whose calibrators are fitted from human judgements (they take ``calibrators=``).
FITTED = ("rudetox-mera",)


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """argparse type: an integer in [lo, hi]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, found {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected an integer from {lo:,} to {hi:,}, found {value:,}")
        return value
    return parse


def fraction(text: str) -> float:
    """argparse type: a number in [0, 1] (NaN refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, found {text!r}") from None
    if not 0.0 <= value <= 1.0:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, found {text!r}")
    return value


def out_file(path: str) -> Path:
    """An output file: not a folder, in a folder that exists or can be made, writable."""
    out = Path(path)
    if out.is_dir():
        raise UsageError(f"--out {path} is a folder; give a file name, such as {out / 'out.csv'}")
    writable_folder(out.parent, f"--out {path}")
    return out


def out_dir(path: str) -> Path:
    """An output folder: refused when it is a file or cannot be made or written."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {path} is a file; give a folder for the score files")
    writable_folder(out, f"--out {path}")
    return out


def writable_folder(folder: Path, what: str) -> None:
    """Refuse a folder that cannot be made or written, without making it: a command
    that fails later leaves nothing behind."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{what}: cannot create the folder {folder} ({existing} is a file)")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{what}: the folder {existing} is not writable")


def parse_models(items: list[str] | None) -> dict[str, str]:
    """``--model ROLE=DIR_OR_ID`` options as a mapping role -> folder or id."""
    out: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--model expects ROLE=DIR_OR_ID (roles: sta, sim, fl), found {item!r}")
        role, value = item.split("=", 1)
        out[role.strip()] = value.strip()
    return out


def calibrator_options(preset: str, path: str | None) -> dict:
    """``--calibrators FILE``: fitted calibrators, for the presets that take them (:data:`FITTED`)."""
    if not path:
        return {}
    if preset not in FITTED:
        raise UsageError(f"--calibrators applies to {', '.join(FITTED)}, not {preset}")
    return {"calibrators": fitted_calibration.load(Path(path))}


def add_bertscore_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("BERTScore (a reference metric; its model comes from the hub)")
    group.add_argument("--bertscore", action="store_true",
                       help="compute BERTScore F1 against the references (default: $DETOX_BERTSCORE, else off: n/a)")
    group.add_argument("--bertscore-model", metavar="ID_OR_DIR",
                       help=f"its model (default: bert-score's for Russian, {bertscore.DEFAULT_MODEL})")
    group.add_argument("--bertscore-layer", type=int_in(0, 1000), metavar="N",
                       help="its layer (default: bert-score's layer for the model, 9 for the default)")


def interval(value: float, lo: float, hi: float) -> str:
    """``0.812 [0.790, 0.833]``, or n/a."""
    if value != value:
        return "n/a"
    return f"{value:.3f} [{lo:.3f}, {hi:.3f}]"


def say(msg: str) -> None:
    """A message for the person at the terminal (stderr; results go to stdout)."""
    print(msg, file=sys.stderr)


def written(*paths: object) -> None:
    """Say which files a command wrote (a message: stderr)."""
    say("written: " + ", ".join(str(p) for p in paths))


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object on stdout (what was scored, the figures, the signature) "
                             "instead of the table")


def plain(value: object) -> object:
    """``value`` with NaN and infinities as None, numpy numbers as Python ones, paths as
    strings: what JSON can hold (it has no NaN)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # a numpy scalar
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def emit_json(obj: dict) -> None:
    """The command's result as one JSON object on stdout (NaN as null)."""
    print(json.dumps(plain(obj), ensure_ascii=False, allow_nan=False))


def step_bars(quiet: bool) -> tuple[Callable[[str, int, int], None], Callable[[], None]]:
    """A tqdm bar per scoring step (on stderr), and a function closing the last one."""
    bars: dict[str, tqdm] = {}

    def step(name: str, done: int, total: int) -> None:
        bar = bars.get(name)
        if bar is None:
            for other in bars.values():
                other.close()
            bar = bars[name] = tqdm(total=total, desc=name, unit="text", file=sys.stderr, disable=quiet)
        bar.n = done
        bar.refresh()

    return step, lambda: [b.close() for b in bars.values()]
