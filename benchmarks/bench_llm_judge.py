"""Throughput and robustness of the llm-judge preset against a local chat-completions
server (tests/llm/fake_llm.py) with a fixed latency per request.

Part 1, throughput: pairs/s and requests per pair at concurrency 1, 8 and 32, without
faults and with injected faults (10% 429 with Retry-After, 5% 500, 2% garbage); the
baseline is concurrency 1 in the same run.

Part 2, acceptance on the 4,320-pair multilingual meta-evaluation sample (TextDetox 2024
sample split, data/textdetox2024/meta_eval/pairs.tsv) with the same faults: a run in a
subprocess is killed midway and restarted; every pair must end scored or flagged (NaN),
no request be charged twice after a stop (SIGTERM, as Ctrl-C; after a SIGKILL only the
answers not yet stored are, and counted), and a third run must send
nothing.

    python benchmarks/bench_llm_judge.py [--pairs 200] [--latency 0.05] [--skip-sample]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from detox_core.llm.cache import ResponseCache  # noqa: E402
from detox_core.llm.client import RetryPolicy  # noqa: E402
from detox_core.llm.runner import JudgeSettings  # noqa: E402
from detox_core.llm.settings import resolve  # noqa: E402
from detox_core.metrics import get_preset  # noqa: E402
from tests.llm.fake_llm import FakeLLM, Faults  # noqa: E402

FAULTS = dict(rate_429=0.10, rate_500=0.05, rate_garbage=0.02, retry_after="0.2")
POLICY = RetryPolicy(max_retries=6, base_delay=0.1, max_delay=2.0, retry_after_cap=5.0, timeout=10.0)


def _preset(url: str, db: str, concurrency: int, langs=None):
    settings = resolve(base_url=url, model="bench-judge", api_key="sk-bench", concurrency=concurrency)
    settings = JudgeSettings(**{**settings.__dict__, "policy": POLICY})
    return get_preset("llm-judge", settings=settings, cache=ResponseCache(f"sqlite:///{db}"), langs=langs)


def throughput(n_pairs: int, latency: float) -> None:
    inputs = [f"toxic input number {i}, you idiot" for i in range(n_pairs)]
    outputs = [f"neutral output number {i}" for i in range(n_pairs)]
    print(f"## Throughput: {n_pairs} pairs, {latency * 1000:.0f} ms per request\n")
    print("| faults | concurrency | pairs/s | speed-up vs 1 | requests sent per pair | answered per pair | missing J |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for faulty in (False, True):
        base = None
        for concurrency in (1, 8, 32):
            faults = Faults(latency=latency, seed=1, **(FAULTS if faulty else {}))
            with FakeLLM(faults) as server, tempfile.TemporaryDirectory() as tmp:
                preset = _preset(server.url, f"{tmp}/judge.sqlite", concurrency)
                t0 = time.perf_counter()
                frame = preset.score(inputs, outputs)
                elapsed = time.perf_counter() - t0
                rate = n_pairs / elapsed
                base = base or rate
                usage = frame.attrs["llm_usage"]
                print(f"| {'10% 429, 5% 500, 2% garbage' if faulty else 'none'} | {concurrency} | {rate:.1f} | "
                      f"{rate / base:.1f}x | {server.stats.requests / n_pairs:.2f} | {usage['answered'] / n_pairs:.2f} | "
                      f"{usage['missing']['j']} |", flush=True)


def _worker(url: str, db: str, out: str) -> None:
    """Score the sample (a subprocess the parent kills and restarts)."""
    import signal

    from detox_core.data.judge_labels import load_pairs

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)  # as the CLI: a stop keeps the answers in flight
    pairs = load_pairs(ROOT / "data" / "textdetox2024" / "meta_eval" / "pairs.tsv")
    preset = _preset(url, db, 32, langs=pairs["lang"].tolist())
    frame = preset.score(pairs["toxic_sentence"].tolist(), pairs["neutral_sentence"].tolist())
    frame.to_csv(out, index=False)
    u = frame.attrs["llm_usage"]
    print(f"usage: {u['requests']} requests, {u['cached']} cached, {u['answered']} answered, {u['reasks']} re-asks, "
          f"{u['failed']} failed, {u['unreadable']} unreadable; missing {u['missing']}")


def sample(latency: float, stop: str = "term") -> int:
    path = ROOT / "data" / "textdetox2024" / "meta_eval" / "pairs.tsv"
    if not path.is_file():
        print(f"the sample is not fetched ({path.relative_to(ROOT)}): python -m detox_core fetch-data --edition "
              "textdetox2024")
        return 1
    how = "stopped with SIGTERM (as Ctrl-C)" if stop == "term" else "killed with SIGKILL"
    print(f"\n## The 4,320-pair sample, concurrency 32, {latency * 1000:.0f} ms per request, faults {FAULTS}, "
          f"the first run {how}\n")
    with FakeLLM(Faults(latency=latency, seed=2, **FAULTS)) as server, tempfile.TemporaryDirectory() as tmp:
        db, out = f"{tmp}/judge.sqlite", f"{tmp}/scores.csv"
        cmd = [sys.executable, __file__, "--worker", server.url, db, out]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        t0 = time.perf_counter()
        first = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        while sum(server.stats.charged.values()) < 5000 and first.poll() is None:
            time.sleep(0.05)
        first.terminate() if stop == "term" else first.kill()
        first.wait()
        killed_at = sum(server.stats.charged.values())
        print(f"- first run {how.split(' with')[0]} after {time.perf_counter() - t0:.1f} s, {killed_at:,} answers "
              "charged")
        t1 = time.perf_counter()
        second = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
        print(f"- restarted run finished in {time.perf_counter() - t1:.1f} s: {second.stdout.strip()}")
        import pandas as pd

        frame = pd.read_csv(out)
        twice = sum(1 for n in server.stats.charged.values() if n > 1)
        print(f"- pairs: {len(frame):,}; J scored {int(frame['j'].notna().sum()):,}, flagged missing "
              f"{int(frame['j'].isna().sum()):,} (STA {int(frame['sta'].isna().sum())}, SIM "
              f"{int(frame['sim'].isna().sum())}, FL {int(frame['fl'].isna().sum())})")
        print(f"- server: {server.stats.requests:,} HTTP requests, statuses {dict(server.stats.status)}, "
              f"{sum(server.stats.charged.values()):,} charged answers over {len(server.stats.charged):,} distinct "
              f"requests; charged twice: {twice}")
        before = server.stats.requests
        third = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
        print(f"- third run: {server.stats.requests - before} requests sent ({third.stdout.strip()})")
        # A stopped run keeps the answers in flight: nothing is paid twice. A killed one (SIGKILL,
        # a crash) loses what it had not yet committed: the requests in flight and the answers
        # waiting for the writer; that count is reported, not bounded.
        ok = (len(frame) == 4320 and (stop != "term" or twice == 0) and np.isfinite(frame["j"]).mean() > 0.95
              and server.stats.requests == before)
        print(f"- acceptance: {'PASS' if ok else 'FAIL'}")
        return 0 if ok else 1


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _worker(*sys.argv[2:5])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--skip-sample", action="store_true")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--stop", choices=["term", "kill", "both"], default="both",
                        help="how the sample's first run is ended: SIGTERM (graceful, as Ctrl-C), SIGKILL, or both")
    args = parser.parse_args()
    if not args.skip_throughput:
        throughput(args.pairs, args.latency)
    if args.skip_sample:
        return 0
    return max(sample(args.latency, stop) for stop in (["term", "kill"] if args.stop == "both" else [args.stop]))


if __name__ == "__main__":
    raise SystemExit(main())
