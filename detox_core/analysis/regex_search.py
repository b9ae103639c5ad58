"""Regular expressions typed by visitors, compiled and matched outside the server's process.

A regular expression is a program, and its compiler can be made to allocate without bound:
the ``regex`` module unfolds counted repeats when it compiles (``(?:x{65535}){65535}`` asks
for more memory than any server has) and compiling cannot be interrupted. A size estimate
read from the pattern's text catches the plain cases with a helpful message
(:func:`pattern_size`), but a hand-written model of another engine's parser drifts from it
(a ``[`` inside a set, a comment or verbose whitespace between a group and its count).

So nothing a visitor types is compiled in the server's process. :func:`search` sends the
pattern and the texts to a worker process (``python -m detox_core.analysis.regex_search``)
whose address space is capped (``RLIMIT_AS``: its size when ready plus
:data:`WORKER_MEMORY_MB`) and whose reply is awaited for a bounded time; a worker that runs
out of memory answers with a clear refusal, one that runs over its time or dies is killed
and replaced. The server's memory and its other sessions are never touched. A few workers
serve all sessions (:data:`WORKERS`); they start on the first search and stay.

Inside the worker, matching runs with the ``regex`` module's timeout (:func:`search_mask`),
with Python's ``re`` syntax, Unicode ``\\w`` and ``\\b``, look-arounds and back-references.
"""

from __future__ import annotations

import os
import pickle
import re
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import regex

from detox_core import config
from detox_core.errors import DetoxInputError

#: Longest search text accepted (characters).
MAX_QUERY_CHARS = 500
#: Wall-clock budget of one regex search over the whole corpus (seconds).
REGEX_BUDGET_S = 0.75
#: Seconds a worker may take to compile a pattern, on top of the search's budget.
COMPILE_S = 1.5
#: Largest size a regular expression may unfold to (see :func:`pattern_size`). The
#: ``regex`` module unfolds counted repeats when it compiles: ``(?:a{1000}){1000}``
#: takes ~260 MB and 0.4 s. ~250 bytes a unit: 20,000 units are ~5 MB, and no search
#: of a corpus of sentences needs more (the longest sentence has ~1,000 characters).
MAX_PATTERN_SIZE = 20_000
#: Memory a worker may allocate beyond its size when ready (MB; ``DETOX_REGEX_MEMORY_MB``).
WORKER_MEMORY_MB = 256
#: Worker processes serving every session of one app process.
WORKERS = 2
#: Seconds a search waits for a free worker before saying the searches are busy.
WAIT_FOR_WORKER_S = 5.0

_COUNTED = regex.compile(r"\{\s*(\d*)\s*(,\s*(\d*)\s*)?\}")
# Escapes whose argument is in braces or angle brackets (\p{L}, \N{...}, \x{41}, \g<1>).
_BRACED_ESCAPES = frozenset("pPNxuUgLk")


def pattern_size(text: str) -> int:
    """An estimate of the units a regular expression unfolds to when compiled.

    Every atom is 1; a group is the sum of its contents (all branches of an
    alternation); a counted repeat ``{m,n}`` multiplies what it repeats by ``n`` (by
    ``m`` when unbounded); ``*``, ``+`` and ``?`` do not unfold. Nested counts multiply,
    which is what makes a 22-character pattern exhaust memory. Read from the text
    alone, never compiled: it refuses the plain cases with advice; the worker's memory
    cap is what bounds the others.
    """
    stack: list[int] = [0]  # the size of each open group so far
    last = 0  # the size of the atom a quantifier would repeat
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            j = i + 2
            if i + 1 < n and text[i + 1] in _BRACED_ESCAPES and j < n and text[j] in "{<":
                close = text.find("}" if text[j] == "{" else ">", j)
                j = n if close < 0 else close + 1
            stack[-1] += 1
            last, i = 1, j
        elif c == "[":
            j, depth = i + 1, 1
            if j < n and text[j] == "^":
                j += 1
            if j < n and text[j] == "]":
                j += 1
            while j < n and depth:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "[":
                    depth += 1  # a nested set (VERSION1) or a POSIX class [:alpha:]
                elif text[j] == "]":
                    depth -= 1
                j += 1
            stack[-1] += 1
            last, i = 1, j
        elif c == "(":
            stack.append(0)
            last, i = 0, i + 1
        elif c == ")":
            inner = stack.pop() if len(stack) > 1 else 0
            stack[-1] += inner
            last, i = inner, i + 1
        elif c == "{" and (m := _COUNTED.match(text, i)) and (m.group(1) or m.group(3)):
            low = int(m.group(1) or 0)
            high = int(m.group(3)) if m.group(2) and m.group(3) else (low if not m.group(2) else None)
            times = high if high is not None else low
            grown = last * max(times, 1)
            stack[-1] += grown - last
            last, i = grown, m.end()
        elif c == "|":
            last, i = 0, i + 1
        elif c in "*+?":
            i += 1  # unbounded or optional: compiled once, not unfolded
        else:
            stack[-1] += 1
            last, i = 1, i + 1
    return sum(stack)


def checked_pattern(text: str, regex_mode: bool, case_sensitive: bool) -> str:
    """The pattern a search compiles, checked without compiling it: its length, and for a
    regular expression its estimated size (:func:`pattern_size`). Raises DetoxInputError."""
    if len(text) > MAX_QUERY_CHARS:
        raise DetoxInputError(f"the search is {len(text):,} characters long; at most {MAX_QUERY_CHARS} are accepted")
    if not case_sensitive:
        # The searched columns are lower-cased with ё folded into е; fold the pattern
        # the same way (only ё: lower-casing a regex would turn \W into \w).
        text = text.replace("ё", "е").replace("Ё", "Е")
    pattern = text if regex_mode else re.escape(text)
    if regex_mode and (size := pattern_size(pattern)) > MAX_PATTERN_SIZE:
        raise DetoxInputError(
            f"the regular expression repeats too much: it unfolds to about {size:,} units when compiled, "
            f"at most {MAX_PATTERN_SIZE:,} are accepted; write large counts as + or * (x+ rather than "
            "x{5000}) and do not nest counted repeats such as (?:x{100}){100}")
    return pattern


def compile_pattern(text: str, regex_mode: bool, case_sensitive: bool) -> regex.Pattern[str]:
    """The search compiled in this process; a bad or over-long one raises DetoxInputError.

    Only the worker process calls this with a visitor's text (see the module's note): the
    server calls :func:`search`.
    """
    pattern = checked_pattern(text, regex_mode, case_sensitive)
    try:
        # Not kept in the module's pattern cache: every distinct search would stay in
        # memory (500 of them), whatever their size.
        return regex.compile(pattern, regex.V0 | (0 if case_sensitive else regex.IGNORECASE), cache_pattern=False)
    except ValueError as err:
        # Flags that cannot go together, such as (?a)(?u) or a version flag (?V1)
        # against the V0 the search is compiled with.
        raise DetoxInputError(f"invalid regular expression: {err}; remove the inline flags such as (?a) or (?V1) "
                              "at the start") from None
    except (regex.error, OverflowError, RecursionError) as err:
        pos = getattr(err, "pos", None)
        where = f" at position {pos + 1}" if pos is not None else ""
        msg = getattr(err, "msg", None) or str(err)
        raise DetoxInputError(f"invalid regular expression{where}: {msg}", column=pos + 1 if pos is not None else None) from None


def search_mask(pattern: regex.Pattern[str], texts: Iterable[str], budget_s: float = REGEX_BUDGET_S) -> list[bool]:
    """Which ``texts`` ``pattern`` finds a match in, within ``budget_s`` seconds in all.

    Raises:
        DetoxInputError: the search did not finish within the budget (a pattern with
            nested repetition such as ``(a+)+`` backtracks exponentially).
    """
    deadline = time.monotonic() + budget_s
    out: list[bool] = []
    for text in texts:
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            out.append(pattern.search(text, timeout=left, concurrent=True) is not None)
        except TimeoutError:
            raise _too_slow(budget_s) from None
    return out


def _too_slow(budget_s: float) -> DetoxInputError:
    return DetoxInputError(
        f"the regular expression took longer than {budget_s:g} s over the corpus and was stopped; "
        "simplify it: nested repetition such as (a+)+ or (\\w+\\s?)+ makes the search exponential")


_TOO_BIG = ("the regular expression needs more memory than a search may use ({mb} MB) and was stopped; do not "
            "nest counted repeats such as (?:x{{100}}){{100}}, and write large counts as + or *")


# --------------------------------------------------------------------------- the worker


def _write(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _read_exact(stream, n: int) -> bytes | None:
    chunks, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _cap_memory(extra_mb: int) -> None:
    """Cap this process's address space at its present size plus ``extra_mb``."""
    try:
        # Imported here: Unix only.
        import resource

        with open("/proc/self/status", encoding="ascii") as f:
            size_kb = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
        cap = size_kb * 1024 + extra_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ImportError, OSError, StopIteration, ValueError):  # not Linux: the time limit still holds
        pass


def worker_main() -> int:
    """The worker's loop: read ``(text, case_sensitive, texts, budget_s)``, answer
    ``("ok", [bool])``, ``("input", problem, column)`` or ``("memory",)``; end at end of input."""
    extra = config.regex_memory_mb(WORKER_MEMORY_MB)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    _cap_memory(extra)
    _write(stdout, ("ready",))
    while True:
        head = _read_exact(stdin, 8)
        if head is None:
            return 0
        body = _read_exact(stdin, struct.unpack("<Q", head)[0])
        if body is None:
            return 0
        text, case_sensitive, texts, budget_s = pickle.loads(body)  # from the server, never from a visitor
        try:
            found = search_mask(compile_pattern(text, True, case_sensitive), texts, budget_s)
            reply: tuple = ("ok", found)
        except DetoxInputError as err:
            reply = ("input", err.problem, err.column)
        except MemoryError:
            reply = ("memory", extra)
        _write(stdout, reply)


class _Worker:
    def __init__(self) -> None:
        env = config.child_environment(str(Path(__file__).resolve().parents[2]))
        self.proc = subprocess.Popen([sys.executable, "-m", "detox_core.analysis.regex_search"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.ready = False

    def ask(self, message: tuple, timeout: float) -> tuple | None:
        """Send ``message`` and wait at most ``timeout`` s for the reply (the first reply
        after a start is awaited too); None when the worker died or ran out of time."""
        deadline = time.monotonic() + timeout
        try:
            if not self.ready:
                if self._reply(deadline + 10.0) != ("ready",):  # a cold start may take a few seconds
                    return None
                self.ready = True
                deadline = time.monotonic() + timeout
            _write(self.proc.stdin, message)
            return self._reply(deadline)
        except (OSError, EOFError, pickle.UnpicklingError, struct.error):
            return None

    def _reply(self, deadline: float) -> tuple | None:
        head = self._read(8, deadline)
        if head is None:
            return None
        body = self._read(struct.unpack("<Q", head)[0], deadline)
        return None if body is None else pickle.loads(body)  # our own worker's answer

    def _read(self, n: int, deadline: float) -> bytes | None:
        fd, chunks, left = self.proc.stdout.fileno(), [], n
        while left:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                return None
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                return None
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        try:
            self.proc.kill()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass


class WorkerPool:
    """At most ``size`` workers, started when needed, shared by every session; a worker
    that timed out or died is killed and not reused."""

    def __init__(self, size: int = WORKERS) -> None:
        self.size = size
        self._idle: list[_Worker] = []
        self._count = 0
        self._cond = threading.Condition()

    def search(self, text: str, case_sensitive: bool, texts: Sequence[str],
               budget_s: float = REGEX_BUDGET_S) -> list[bool]:
        pattern = checked_pattern(text, True, case_sensitive)  # the plain cases, with advice
        worker = self._acquire()
        reply = None
        try:
            reply = worker.ask((pattern, case_sensitive, list(texts), budget_s), budget_s + COMPILE_S)
        finally:  # a worker that ran out of memory is not trusted again: a fresh one replaces it
            self._release(worker, ok=reply is not None and reply[0] != "memory")
        if reply is None:
            raise DetoxInputError(
                f"the regular expression took longer than {budget_s + COMPILE_S:g} s to compile and search, or "
                "needed more memory than a search may use, and was stopped; simplify it: do not nest counted "
                "repeats such as (?:x{100}){100} or repetition such as (a+)+")
        if reply[0] == "ok":
            return reply[1]
        if reply[0] == "memory":
            raise DetoxInputError(_TOO_BIG.format(mb=reply[1]))
        if reply[0] == "input":
            raise DetoxInputError(reply[1], column=reply[2])
        raise DetoxInputError("the search could not be run; try again")

    def _acquire(self) -> _Worker:
        with self._cond:
            if not self._cond.wait_for(lambda: self._idle or self._count < self.size, WAIT_FOR_WORKER_S):
                raise DetoxInputError("other regular-expression searches are running; try again in a moment")
            if self._idle:
                return self._idle.pop()
            self._count += 1
        try:
            return _Worker()
        except OSError:
            with self._cond:
                self._count -= 1
                self._cond.notify()
            raise DetoxInputError("the search could not be started; try again") from None

    def _release(self, worker: _Worker, ok: bool) -> None:
        if not ok or not worker.alive():
            worker.kill()
        with self._cond:
            if ok and worker.alive():
                self._idle.append(worker)
            else:
                self._count -= 1
            self._cond.notify()

    def close(self) -> None:
        with self._cond:
            idle, self._idle = self._idle, []
            self._count -= len(idle)
        for worker in idle:
            worker.kill()


_POOL = WorkerPool()


def search(text: str, case_sensitive: bool, texts: Sequence[str], budget_s: float = REGEX_BUDGET_S) -> list[bool]:
    """Which ``texts`` the regular expression ``text`` finds a match in, compiled and
    matched in a capped worker process (see the module's note). Raises DetoxInputError
    with what to change: an invalid pattern (with its column), one too large, or one
    that ran over its time or memory."""
    return _POOL.search(text, case_sensitive, texts, budget_s)


if __name__ == "__main__":
    sys.exit(worker_main())
