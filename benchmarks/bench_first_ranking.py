"""The first ranking of two or more rewrites per language in Live scoring, in headless Chromium.

A fresh ``python -m detox_core serve`` (what ``make run`` starts) with the embedded preset,
then, one language after another on that same server, a share link of Live scoring with a
toxic input and three rewrites typed in its language (a polite rewrite, the input copied, an
unrelated sentence): the time from opening the link until the request is ranked, that is
every rewrite's J card is drawn with the ranking's marks ("★ best J", "not ranked: ...") and
the line under the cards. Russian on RUSSE-2022 first (opened as soon as the health check
answers: the models still warm), then English, German and Ukrainian on TextDetox 2024 (each
a new tab: a visitor's first ranking in a new language), and the first language again in a
new tab (nothing left to load: what a later ranking costs).

The spinners the page showed while each one ran are listed (``Measuring how far apart ...``
is the "unrelated" check's ceilings measured on the spot: hundreds of training inputs embedded).

``--load N`` runs N busy CPU loops beside it all (started before the server, stopped at the
end, and each ends by itself when the run's time is up): "loaded" against "quiet". ``--spy S``
prints the server's Python stacks (``py-spy dump``, installed beside this Python) when a
language is not ranked S seconds after its link: what it is waiting for.

``--no-disk-cache`` starts the server without the on-disk cache of model outputs
(``DETOX_SCORE_CACHE_MB=0``): every text goes through its model, as on a new deployment; with
the cache as it is, a data folder that has already embedded the training inputs answers from it.

Run from the repository root: ``python benchmarks/bench_first_ranking.py [--load N] [--no-disk-cache]
[--spy S] [--timeout S] [APP_DIR]`` (the data and the embedded models must be there; Chromium at
/usr/bin/chromium or on the PATH). ``APP_DIR``: another checkout to run (e.g. an older commit
exported with ``git archive``), reading this checkout's data. The whole run is bounded by
``--timeout`` (600 s); the server, the browser and the loops it started are always stopped.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.util import CHROMIUM, start_app, stop_app  # noqa: E402

#: (row name, dataset, language, toxic input, [polite rewrite, the copy, an unrelated sentence])
REQUESTS = [
    ("Russian (RUSSE-2022)", "RUSSE-2022", "ru", "Ты дурак, заткнись, никому это не интересно",
     ["Ты не прав, помолчи, пожалуйста, это никому не интересно", None,
      "Завтра в городе обещают тёплую солнечную погоду"]),
    ("English (TextDetox 2024)", "TextDetox 2024", "en", "shut up you stupid idiot, nobody cares",
     ["please be quiet, nobody cares", None, "The train to the coast leaves at nine tomorrow morning"]),
    ("German (TextDetox 2024)", "TextDetox 2024", "de", "Halt die Klappe, du dummer Idiot, das interessiert keinen",
     ["Sei bitte still, das interessiert niemanden", None, "Morgen soll es in der Stadt sonnig und warm werden"]),
    ("Ukrainian (TextDetox 2024)", "TextDetox 2024", "uk", "Заткнися, тупий ідіоте, це нікому не цікаво",
     ["Будь ласка, помовч, це нікому не цікаво", None, "Завтра в місті обіцяють теплу сонячну погоду"]),
]

#: Ranked: as many J cards as rewrites, and the line the page draws under the cards once the
#: ranking is done (the marks of the cards are drawn with them). Each look also notes the
#: spinners on the page, so that the run can say what the visitor was shown while waiting.
RANKED_JS = """(n) => {
  window.__seen = window.__seen || new Set();
  for (const s of document.querySelectorAll('[data-testid="stSpinner"]')) {
    const text = s.innerText.trim();
    if (text) window.__seen.add(text.split('\\n')[0]);
  }
  const cards = [...document.querySelectorAll('[data-testid="stMetricLabel"]')]
    .filter(l => l.innerText.trim() === 'J').length;
  const body = document.body.innerText;
  return cards >= n && (body.includes('\\u2605 marks the highest J among the rewrites')
    || body.includes('No rewrite is marked best'));
}"""


def link(url: str, dataset: str, lang: str, toxic: str, rewrites: list[str | None]) -> str:
    lines = [toxic if r is None else r for r in rewrites]
    return f"{url}/live_scoring?" + urllib.parse.urlencode(
        {"dataset": dataset, "live_lang": lang, "live_input": toxic, "live_candidates": "\n".join(lines)})


def busy_loops(n: int, seconds: float) -> list[subprocess.Popen]:
    """``n`` processes that each keep a core busy for at most ``seconds``."""
    code = f"import time\nend = time.monotonic() + {seconds:.0f}\nwhile time.monotonic() < end:\n    pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(n)]


def spy(pid: int) -> str:
    """The Python stacks of the process ``pid`` (py-spy beside this Python; it is not stopped)."""
    tool = Path(sys.executable).with_name("py-spy")
    try:
        done = subprocess.run([str(tool), "dump", "--nonblocking", "--pid", str(pid)], capture_output=True,
                              text=True, timeout=60)
        return done.stdout + done.stderr
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"(py-spy: {err})"


def main() -> int:
    from playwright.sync_api import TimeoutError as PageTimeout
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", type=int, default=0, metavar="N", help="busy CPU loops beside the run")
    parser.add_argument("--spy", type=float, default=0.0, metavar="S",
                        help="dump the server's stacks when a language is not ranked S seconds after its link")
    parser.add_argument("--no-disk-cache", action="store_true",
                        help="the server without the on-disk cache of model outputs (DETOX_SCORE_CACHE_MB=0): every "
                             "text through its model, as on a new deployment")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S", help="the whole run's limit")
    parser.add_argument("app_dir", nargs="?", default=str(ROOT))
    args = parser.parse_args()
    deadline = time.monotonic() + args.timeout

    def left() -> float:
        """A wait's limit: the milliseconds left of the run (at least one second)."""
        return max(1.0, deadline - time.monotonic()) * 1000

    # a stop asked for (``timeout``, ``kill``) goes through the clean-up below as well
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped (SIGTERM)"))
    app_dir = Path(args.app_dir).resolve()
    data_dir = os.environ.get("DETOX_DATA_DIR", str((ROOT / "data").resolve()))
    load_before = os.getloadavg()
    rows: list[tuple[str, float, float, list[str]]] = []
    proc, loops = None, []
    with tempfile.TemporaryDirectory(prefix="bench-first-ranking-") as tmp:
        try:
            loops = busy_loops(args.load, args.timeout + 30)
            # a database of its own: the run stores nothing, and an older checkout never migrates this one's
            env = {"DETOX_DATA_DIR": data_dir, "DETOX_DB_URL": f"sqlite:///{Path(tmp) / 'bench.sqlite'}",
                   "HF_HUB_OFFLINE": "1"}
            if args.no_disk_cache:
                env["DETOX_SCORE_CACHE_MB"] = "0"
            t0 = time.perf_counter()
            proc, url = start_app(env, app_dir=app_dir, launcher=True)
            started = time.perf_counter() - t0
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
                try:
                    plan = [*REQUESTS, (REQUESTS[0][0] + ", again in a new tab", *REQUESTS[0][1:])]
                    for name, dataset, lang, toxic, rewrites in plan:
                        pg = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                        n = len(rewrites)
                        t = time.perf_counter()
                        pg.goto(link(url, dataset, lang, toxic, rewrites), timeout=left())
                        pg.get_by_role("heading", name="Live scoring").wait_for(timeout=left())
                        title = time.perf_counter() - t
                        limit = min(left(), max(50.0, (args.spy - title) * 1000)) if args.spy else left()
                        try:
                            pg.wait_for_function(RANKED_JS, arg=n, polling=50, timeout=limit)
                        except PageTimeout:
                            if not args.spy or time.monotonic() >= deadline:
                                raise
                            print(f"--- {name}: not ranked {time.perf_counter() - t:.1f} s after the link; "
                                  f"the server's stacks:\n{spy(proc.pid)}", file=sys.stderr, flush=True)
                            pg.wait_for_function(RANKED_JS, arg=n, polling=50, timeout=left())
                        ranked = time.perf_counter() - t
                        seen = pg.evaluate("() => [...(window.__seen || [])]")
                        rows.append((name, title, ranked, seen))
                        print(f"{name}: ranked {ranked:.1f} s", file=sys.stderr, flush=True)
                        pg.context.close()
                finally:
                    browser.close()
        finally:
            if proc is not None:
                stop_app(proc)
            for loop in loops:
                loop.kill()
                loop.wait()
    load_after = os.getloadavg()
    print(f"server: python -m detox_core serve of {'this checkout' if app_dir == ROOT else app_dir.name}, "
          f"up in {started:.1f} s; on-disk cache of model outputs {'off' if args.no_disk_cache else 'as it is'}; "
          f"{args.load} busy loop(s) beside it "
          f"({'loaded' if args.load else 'quiet'}); load average (1, 5, 15 min) "
          f"{' '.join(f'{v:.2f}' for v in load_before)} before, {' '.join(f'{v:.2f}' for v in load_after)} after")
    print("each link opened when the previous one was ranked; 3 rewrites (polite, the copy, unrelated)\n")
    print("| language | title (s) | ranked (s) | quiet/loaded | spinners shown |")
    print("|---|---|---|---|---|")
    for name, title, ranked, seen in rows:
        print(f"| {name} | {title:.1f} | {ranked:.1f} | {'loaded' if args.load else 'quiet'} ({args.load}) | "
              f"{'; '.join(seen) or '-'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
