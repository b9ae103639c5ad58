"""What one app process costs per recipe: resident memory and pairs/s, each recipe alone
in a fresh process, as a deployment sizes its processes.

For each preset (``embedded`` and the model-based ones on full-size random-weight models
of the real architectures, built by ``bench_gpu.py``'s builders), a new Python process:

1. imports the library (the app's baseline),
2. loads every model of the preset through the pool (and, for ``embedded``, every
   language's models, the language identifier and the segmenters: the server's warm-up),
3. scores a first set of pairs (cold: model outputs not cached anywhere), then a second,
   new set (warm models, texts not seen before),

and prints its RSS after each step (and the peak), with the pairs/s of both sets. The
on-disk cache of model outputs is off, so every pair is computed. From the largest RSS it
prints how many such processes fit in this machine's memory (keeping 2 GB for the system
and PostgreSQL).

Data: the RUSSE-2022 test inputs with the ``t5_base_10000`` outputs (russe2022,
rudetox-mera, embedded), the TextDetox 2024 test inputs with each input's longest word
removed (textdetox2024, textdetox2025; 9 languages). Run:
``.venv/bin/python benchmarks/bench_process.py --keep DIR`` (``--keep`` builds the models
once: 11 GB; ``--presets`` to pick; ``--pairs N`` per set, default 200).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PRESETS = ("embedded", "russe2022", "rudetox-mera", "textdetox2024", "textdetox2025")


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(name: str, keep: Path, pairs: int) -> dict:
    """One recipe in this (fresh) process."""
    os.environ["DETOX_SCORE_CACHE_MB"] = "0"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(HERE))
    out: dict = {"preset": name}
    import numpy as np  # noqa: F401
    import torch

    from detox_core.metrics import get_preset
    from detox_core.models import ModelPool

    out["threads"] = torch.get_num_threads()
    out["rss_import"] = rss_mb()
    import bench_gpu as bg  # the builders and the data of the GPU benchmark

    if name == "embedded":
        systems = bg.russe2022_systems(None)
        t = time.perf_counter()
        preset = get_preset("embedded")
        for _, step in preset.warm_steps():  # the heads, the model of meaning, lingua, the segmenters
            step()
    else:
        recipe = bg.RECIPES[name]
        folders = built(name, keep)
        systems = bg.russe2022_systems(None) if recipe.dataset == "russe2022" else bg.textdetox_systems(name, None)
        t = time.perf_counter()
        pool = ModelPool(device="cpu", backend="torch", model_map=recipe.model_map(folders))
        preset = get_preset(name, pool=pool, models=recipe.preset_models(folders))
        for role, kind in preset.model_kinds.items():
            pool.get(preset.models[role], kind, role, preset.sources.get(role), preset.companions.get(role))
    out["load_s"] = time.perf_counter() - t
    out["rss_loaded"] = rss_mb()
    system = next(iter(systems.outputs))
    outputs, refs = systems.outputs[system], systems.references[system]
    # Two sets of new pairs, spread over the data (every language of TextDetox).
    order = list(range(len(systems.inputs)))
    step = max(1, len(order) // (2 * pairs))
    picked = order[::step][: 2 * pairs]
    for label, idx in (("cold", picked[:pairs]), ("warm", picked[pairs:])):
        x = [systems.inputs[i] for i in idx]
        y = [outputs[i] for i in idx]
        r = None if refs is None else [[refs[i]] for i in idx]
        t = time.perf_counter()
        preset.score(x, y, r)
        out[f"{label}_pairs_s"] = len(idx) / (time.perf_counter() - t)
    out["rss_scored"] = rss_mb()
    out["rss_peak"] = peak_mb()
    return out


def built(name: str, keep: Path) -> dict[str, Path]:
    """The preset's model folders, built by bench_gpu's builders (once, under ``keep``)."""
    import bench_gpu as bg
    from detox_core import editions

    work = keep / "full"
    if name in ("russe2022", "rudetox-mera"):
        train = editions.load_dataset("russe2022", ["train"])
        texts = train["toxic_comment"].tolist() + train["neutral_comment1"].tolist()
        if name == "russe2022":
            return bg.build_russe2022(work / "russe2022", texts, False)
        sample = editions.load_dataset("russe2022", ["dev"])["toxic_comment"].tolist()[:64]
        return bg.build_mera(work / "rudetox-mera", texts, sample, False)
    test, dev = bg.b24.load_inputs("test"), bg.b24.load_inputs("dev")
    return bg.build_textdetox(work / "textdetox", test["toxic_comment"].tolist(), bg.b24.pick_rows(dev, 8)[0], False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+", choices=PRESETS, default=list(PRESETS))
    parser.add_argument("--pairs", type=int, default=200, help="pairs per set (default 200)")
    parser.add_argument("--keep", metavar="DIR", required=True, help="where the full-size models are (built once)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    keep = Path(args.keep)
    if args.child:
        print("RESULT " + json.dumps(child(args.child, keep, args.pairs)), flush=True)
        return 0
    rows = []
    for name in args.presets:
        proc = subprocess.run([sys.executable, __file__, "--child", name, "--keep", str(keep), "--pairs", str(args.pairs)],
                              capture_output=True, text=True, cwd=ROOT)
        found = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
        if proc.returncode or not found:
            print(f"{name}: failed\n{proc.stderr[-2000:]}")
            continue
        rows.append(json.loads(found[-1][7:]))
        r = rows[-1]
        print(f"{name:<14} RSS MB: import {r['rss_import']:6.0f}, loaded {r['rss_loaded']:6.0f}, after scoring "
              f"{r['rss_scored']:6.0f}, peak {r['rss_peak']:6.0f}; load {r['load_s']:5.1f} s; pairs/s cold "
              f"{r['cold_pairs_s']:8.1f}, warm {r['warm_pairs_s']:8.1f} ({r['threads']} threads)", flush=True)
    with open("/proc/meminfo", encoding="ascii") as fh:
        total_mb = int(fh.readline().split()[1]) / 1024
    cores = os.cpu_count() or 1
    print(f"\nthis machine: {total_mb / 1024:.0f} GB of memory, {cores} cores")
    for r in rows:
        fits = int((total_mb - 2048) // r["rss_peak"])
        print(f"  {r['preset']:<14} {fits:3d} processes fit in memory; one process uses {r['threads']} threads, so "
              f"{max(1, cores // r['threads'])} keep the cores busy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
