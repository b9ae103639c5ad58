"""The model pool: every transformer model is loaded once per process and shared.

Keyed by (where the model loads from, kind, device, dtype, backend). Models load lazily,
on CUDA when present, else the CPU, in fp32: half precision (``precision`` or
``DETOX_PRECISION``) is a GPU opt-in recorded in every signature until a device has
measured it within 5e-4 of fp32 per system (``benchmarks/bench_gpu.py``). On the CPU a
model can also run through ONNX Runtime (``backend="onnx"``, exported once under
``data/models/onnx``; same numbers within 1e-4). Inference runs in token-budget batches of
texts of about one length (:mod:`detox_core.models.batching`). Each text runs once: results
are memoised in memory (bounded by bytes; the inputs are shared by every submission, a
repeated output is not run again) and, for the process-wide pool (:func:`default_pool`),
on disk across runs, restarts and processes (:mod:`detox_core.models.disk_cache`).

A model id can be mapped to a local directory (air-gapped machines, tests) for the
whole process with :meth:`ModelPool.map_model` (the organizers' model settings), the
``DETOX_MODEL_MAP`` environment variable (``id=DIR;id2=DIR2``) or ``DETOX_MODEL_DIR``
(a folder holding ``<org>__<name>`` sub-folders); or for one call only, with the
``source`` argument of every method (``score --model ROLE=DIR``): such a folder never
reaches other callers. Loading goes through the same ``from_pretrained`` code either way.

The pool is thread-safe: Streamlit serves sessions from threads; the mapping changes
and the loading run under the pool's lock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from detox_core import config, extras
from detox_core.errors import DetoxInputError, ModelUnavailableError
from detox_core.lru import ByteLRU, cache_budget
from detox_core.models.batching import PAIR_SEP, plan_batches, run_batches, torch_dtype  # noqa: F401
from detox_core.models.disk_cache import DiskCache, default_disk_cache, model_identity
from detox_core.models.origin import default_device, hub_reachable, in_hub_cache, revision
from detox_core.models.kinds import CUSTOM_KINDS
from detox_core.models.onnx import onnx_session

log = logging.getLogger(__name__)

Kind = str  # "classifier", "encoder", "sentence-transformer", "seq2seq" or a registered kind
Backend = Literal["auto", "torch", "onnx"]
Progress = Callable[[int, int], None]


@dataclass
class _Loaded:
    model_id: str
    source: str
    local: bool
    kind: Kind
    device: str
    dtype: str
    backend: str
    tokenizer: Any = None
    model: Any = None  # torch module, ORT session or SentenceTransformer
    id2label: dict[int, str] = field(default_factory=dict)
    revision: str | None = None
    input_names: tuple[str, ...] = ()
    #: (tokenizer id, where it loads from, is_local) when the tokenizer is another model's
    tokenizer_from: tuple[str, str, bool] | None = None
    #: what the on-disk cache keys this model's outputs by (None: not cached on disk)
    identity: str | None = None

    def info(self) -> dict[str, Any]:
        out = {
            "id": self.model_id, "source": self.source if self.local else "hub", "revision": self.revision,
            "device": self.device, "dtype": self.dtype, "backend": self.backend,
        }
        if self.tokenizer_from:
            tid, where, local = self.tokenizer_from
            out["tokenizer"] = {"id": tid, "source": where if local else "hub", "revision": revision(where, local)}
        return out


class ModelPool:
    """Loads, places and runs transformer models; shared by all callers of a process.

    Args:
        device: ``"cuda"``, ``"cpu"`` or None (CUDA when available).
        model_map: model id -> local folder; merged over ``DETOX_MODEL_MAP``.
        batch_size: texts per forward pass at most (registered kinds: exactly).
        token_budget: tokens per forward pass (texts x the longest's tokens) at most; a
            batch of short texts holds up to ``8 x batch_size`` of them. None: 64 tokens a
            text of ``batch_size`` on the CPU (2,048 at the default 32), 512 on a GPU (16,384).
        max_length: tokens kept per text (the official evaluation truncates at 512).
        backend: ``"torch"``, ``"onnx"`` (CPU only) or ``"auto"`` (PyTorch; see
            :meth:`_choose_backend` for the measurement behind it).
        cache_dir: where ONNX exports are kept (default ``data/models/onnx``).
        precision: ``"float32"``, ``"float16"`` or ``"bfloat16"`` on a GPU (default:
            ``DETOX_PRECISION``, else float32); the CPU always runs float32.
        disk_cache: a :class:`DiskCache` (or the path of one, bounded by
            ``DETOX_SCORE_CACHE_MB``) keeping outputs across runs and processes; None: in
            memory only. :func:`default_pool` gives one under ``<data>/cache/model_outputs``.
    """

    def __init__(
        self,
        device: str | None = None,
        model_map: dict[str, str] | None = None,
        batch_size: int = 32,
        max_length: int = 512,
        backend: Backend = "auto",
        cache_dir: str | Path | None = None,
        precision: str | None = None,
        token_budget: int | None = None,
        disk_cache: DiskCache | str | Path | None = None,
    ) -> None:
        # Decided on first use: finding out whether there is a GPU imports torch (seconds),
        # which a page that runs no transformer model should not wait for.
        self._device = device
        self._device_lock = threading.Lock()
        self.precision = precision or config.precision()
        if self.precision not in config.PRECISIONS:
            raise DetoxInputError(f"precision must be one of {', '.join(config.PRECISIONS)}, got {self.precision!r}")
        self._model_map = {**config.model_map(), **(model_map or {})}
        self.batch_size = batch_size
        self._token_budget = token_budget
        self.max_length = max_length
        if disk_cache is not None and not isinstance(disk_cache, DiskCache):
            disk_cache = DiskCache(disk_cache, int(config.score_cache_mb() * 1024 * 1024))
        self.disk = disk_cache
        self.backend = self._choose_backend(backend)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else config.data_dir() / "models" / "onnx"
        self._lock = threading.RLock()
        self._load_locks: dict[tuple, threading.Lock] = {}
        self._models: dict[tuple, _Loaded] = {}
        # (model source, kind, device, dtype, backend, text) -> result, bounded by bytes.
        self._memo: ByteLRU[np.ndarray] = ByteLRU(
            cache_budget("pool"), sizeof=lambda key, v: v.nbytes + 2 * len(key[-1]) + 250)
        self.forward_texts = 0  # texts actually run through a model (for tests and benchmarks)
        self.forward_tokens = 0  # tokens of those texts (padding excluded)
        self.padded_tokens = 0  # tokens the models ran, padding included
        #: None, or a dict the pool fills with seconds per stage ("tokenize", "pad",
        #: "forward", "post") and the (model, texts, width) of every batch (benchmarks).
        self.profile: dict[str, Any] | None = None

    @property
    def device(self) -> str:
        """``"cuda"`` when a GPU is available (or was asked for), else ``"cpu"``."""
        if self._device is None:
            with self._device_lock:
                if self._device is None:
                    self._device = default_device()
        return self._device

    @property
    def token_budget(self) -> int:
        """Tokens per forward pass at most (padding included)."""
        if self._token_budget:
            return self._token_budget
        return (64 if self.device == "cpu" else 512) * self.batch_size

    @property
    def device_known(self) -> bool:
        """Whether :attr:`device` is decided already (reading it then costs nothing)."""
        return self._device is not None

    @property
    def dtype(self) -> str:
        """The models' floating-point type: float32 on the CPU, the chosen precision on a GPU."""
        return self.precision if self.device.startswith("cuda") else "float32"

    # ------------------------------------------------------------------ loading

    def _choose_backend(self, backend: Backend) -> str:
        # "auto" is PyTorch: measured on a 2-core Xeon with oneDNN, ONNX Runtime (also with its fused
        # transformer graph) ran BERT-base about 10% slower in fp32; ONNX stays for CPUs where it wins.
        if backend in ("torch", "auto") or self.device != "cpu":
            if backend == "onnx" and self.device != "cpu":
                raise DetoxInputError("the ONNX backend runs on the CPU only; use backend='torch' on CUDA")
            return "torch"
        try:
            import onnxruntime  # noqa: F401 - optional: is it installed?
        except ImportError:
            if backend == "onnx":
                raise DetoxInputError("backend='onnx' needs the onnxruntime package") from None
            return "torch"
        return "onnx"

    # ------------------------------------------------------------------ local folders

    @property
    def model_map(self) -> dict[str, str]:
        """A copy of the process-wide model id -> local folder mapping."""
        with self._lock:
            return dict(self._model_map)

    def map_model(self, model_id: str, folder: str | None) -> None:
        """Load ``model_id`` from ``folder`` for every caller of this pool (None: from the
        hub again). Models loaded from the old place stay loaded but are no longer served."""
        with self._lock:
            if folder:
                self._model_map[model_id] = str(folder)
            else:
                self._model_map.pop(model_id, None)

    def set_model_map(self, mapping: dict[str, str]) -> None:
        """Replace the whole process-wide mapping."""
        with self._lock:
            self._model_map = dict(mapping)

    def resolve(self, model_id: str, source: str | None = None) -> tuple[str, bool]:
        """Where ``model_id`` loads from: ``(folder or hub id, is_local)``; ``source`` (a
        folder for this call only) comes first."""
        if source:
            return str(source), True
        with self._lock:
            mapped = self._model_map.get(model_id)
        if mapped is not None:
            return mapped, True
        root = config.model_dir()
        if root:
            cand = root / model_id.replace("/", "__")
            if cand.is_dir():
                return str(cand), True
        if Path(model_id).is_dir():
            return model_id, True
        return model_id, False

    def locate(self, model_id: str, source: str | None = None) -> str | None:
        """Where ``model_id`` would load from, found without loading it (at most the
        hub check's few seconds): ``"loaded"``, ``"folder"`` (a local folder that exists),
        ``"cache"`` (the local Hugging Face cache), ``"hub"`` (a download), or None when it
        cannot be had here (a mapped folder that is gone, or not cached and no hub)."""
        where, local = self.resolve(model_id, source)
        with self._lock:
            if any(key[0] == where for key in self._models):
                return "loaded"
        if local:
            return "folder" if Path(where).is_dir() else None
        if in_hub_cache(model_id):
            return "cache"
        return "hub" if hub_reachable() else None

    def get(self, model_id: str, kind: Kind, role: str | None = None, source: str | None = None,
            tokenizer: str | None = None) -> _Loaded:
        """The loaded model (loading it on first use). Raises ModelUnavailableError.

        ``tokenizer``: the id of another model whose tokenizer this one uses (the 2025
        toxicity classifier is read with ``cardiffnlp/twitter-xlm-roberta-large-2022``'s);
        it resolves through the same local folders as model ids.
        """
        # Keyed by where the model loads from: a remapped id never serves the old model or its results.
        where, local = self.resolve(model_id, source)
        tok = (tokenizer, *self.resolve(tokenizer)) if tokenizer else None
        key = (where, kind, self.device, self.dtype, self.backend, tok[1] if tok else None)
        with self._lock:
            if key in self._models:
                return self._models[key]
            lock = self._load_locks.setdefault(key, threading.Lock())
        with lock:  # one thread loads; the others wait for it
            with self._lock:
                if key in self._models:
                    return self._models[key]
            loaded = self._load(model_id, where, local, kind, role, tok)
            loaded.identity = self._identity(loaded)
            with self._lock:
                self._models[key] = loaded
            return loaded

    def _load(self, model_id: str, source: str, local: bool, kind: Kind, role: str | None,
              tok: tuple[str, str, bool] | None = None) -> _Loaded:
        if local and not Path(source).is_dir():
            raise ModelUnavailableError(model_id, f"the folder {source} does not exist", role)
        if tok and tok[2] and not Path(tok[1]).is_dir():
            raise ModelUnavailableError(model_id, f"the tokenizer folder {tok[1]} does not exist", role)
        needs = ("torch", "transformers", "sentence_transformers")[:3 if kind == "sentence-transformer" else 2]
        extras.require("models", f"the {role + ' ' if role else ''}model '{model_id}'", needs)
        loaded = _Loaded(model_id, source, local, kind, self.device, self.dtype, "torch", tokenizer_from=tok)
        # Offline, a hub id can still load from the local Hugging Face cache.
        cache_only = local or not hub_reachable()
        try:
            if kind in CUSTOM_KINDS:
                CUSTOM_KINDS[kind].load(loaded, cache_only)
                loaded.revision = loaded.revision or revision(source, local)
                return loaded
            if kind == "sentence-transformer":
                from sentence_transformers import SentenceTransformer  # seconds to import: here, when needed
                model = SentenceTransformer(source, device=self.device, local_files_only=cache_only)
                if self.dtype != "float32":
                    model = model.to(torch_dtype(self.dtype))
                loaded.model = model
                loaded.revision = revision(source, local)
                return loaded
            # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
            import torch
            from transformers import AutoModel, AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoTokenizer

            tok_source, tok_local = (tok[1], tok[2]) if tok else (source, local)
            loaded.tokenizer = AutoTokenizer.from_pretrained(
                tok_source, local_files_only=tok_local or cache_only)  # offline: no minute of hub retries
            cls = {"classifier": AutoModelForSequenceClassification, "seq2seq": AutoModelForSeq2SeqLM}.get(kind, AutoModel)
            model = cls.from_pretrained(source, local_files_only=cache_only)
        except ModelUnavailableError:
            raise
        except Exception as err:  # hub unreachable, missing files, wrong architecture
            reason = str(err).strip().splitlines()[0].rstrip(".") if str(err).strip() else type(err).__name__
            if cache_only and not local:
                reason = f"the model hub cannot be reached and the model is not in the local cache ({reason})"
            raise ModelUnavailableError(model_id, reason, role) from err
        model.eval()
        loaded.id2label = {int(k): str(v) for k, v in (model.config.id2label or {}).items()}
        loaded.revision = getattr(model.config, "_commit_hash", None) or revision(source, local)
        if self.device != "cpu":
            model = model.to(self.device, dtype=torch_dtype(self.dtype))
        if self.backend == "onnx" and kind != "seq2seq":
            loaded.model = onnx_session(model, loaded, self.cache_dir)
            loaded.backend = "onnx"
        else:
            loaded.model = model
        return loaded

    def _identity(self, loaded: _Loaded) -> str | None:
        """What the on-disk cache keys this model's outputs by (None: not cached on disk)."""
        if self.disk is None:
            return None
        return model_identity(loaded, self.model_map if loaded.kind in CUSTOM_KINDS else {}, self.max_length)

    def info(self, model_id: str, kind: Kind, role: str | None = None, source: str | None = None,
             tokenizer: str | None = None) -> dict[str, Any]:
        """Id, source, revision, device, dtype and backend of a (loaded) model."""
        return self.get(model_id, kind, role, source, tokenizer).info()

    # ------------------------------------------------------------------ inference

    def probabilities(
        self, model_id: str, texts: Sequence[str], role: str | None = None, progress: Progress | None = None,
        source: str | None = None, tokenizer: str | None = None,
    ) -> np.ndarray:
        """Class probabilities of a sequence classifier, one row per text: the softmax of
        its logits, or for a model with a single logit the sigmoid (one column)."""
        return self._run(model_id, "classifier", texts, role, progress, source, tokenizer)

    def pair_probabilities(
        self, model_id: str, firsts: Sequence[str], seconds: Sequence[str], role: str | None = None,
        progress: Progress | None = None, source: str | None = None,
    ) -> np.ndarray:
        """Class probabilities of a sentence-pair classifier (paraphrase detectors): the
        pair ``(first, second)`` is encoded as the model's two segments."""
        if len(firsts) != len(seconds):
            raise DetoxInputError(f"expected as many second texts as first texts ({len(firsts)}), found {len(seconds)}")
        keys = [f"{a}{PAIR_SEP}{b}" for a, b in zip(firsts, seconds)]
        return self._run(model_id, "classifier", keys, role, progress, source, pairs=True)

    def run_custom(
        self, model_id: str, kind: Kind, items: Sequence[str], role: str | None = None,
        progress: Progress | None = None, source: str | None = None, tokenizer: str | None = None,
    ) -> np.ndarray:
        """Run a model of a registered kind (:func:`register_kind`) on ``items`` (strings,
        memoised like texts), in batches of :attr:`batch_size`; one row per item. ``tokenizer``:
        another model id the kind loads with it (resolved as in :meth:`get`)."""
        if kind not in CUSTOM_KINDS:
            raise DetoxInputError(f"unknown model kind {kind!r}; registered: {', '.join(CUSTOM_KINDS) or 'none'}")
        return self._run(model_id, kind, items, role, progress, source, tokenizer)

    def label_index(self, model_id: str, candidates: Sequence[str], fallback: int, role: str | None = None,
                    source: str | None = None, tokenizer: str | None = None) -> int:
        """The class index whose label name matches one of ``candidates`` (any case)."""
        id2label = self.get(model_id, "classifier", role, source, tokenizer).id2label
        wanted = [c.lower() for c in candidates]
        for idx, name in sorted(id2label.items()):
            if name.lower() in wanted:
                return idx
        return fallback

    def embeddings(
        self, model_id: str, texts: Sequence[str], kind: Kind = "encoder", role: str | None = None,
        progress: Progress | None = None, source: str | None = None,
    ) -> np.ndarray:
        """L2-normalised sentence embeddings: the ``pooler_output`` of an encoder
        (``kind="encoder"``) or a sentence-transformers model's own pooling."""
        return self._run(model_id, kind, texts, role, progress, source)

    def _run(self, model_id: str, kind: Kind, texts: Sequence[str], role: str | None, progress: Progress | None,
             source: str | None = None, tokenizer: str | None = None, pairs: bool = False) -> np.ndarray:
        loaded = self.get(model_id, kind, role, source, tokenizer)
        memo_key = (loaded.source, kind, self.device, self.dtype, self.backend,
                    loaded.tokenizer_from[1] if loaded.tokenizer_from else None, pairs)
        done = 0

        disk = self.disk if loaded.identity is not None else None
        namespace = f"{loaded.identity}|pairs={pairs}"

        def compute(missing: list[tuple]) -> list[np.ndarray]:
            nonlocal done
            todo = [key[-1] for key in missing]
            results: dict[str, np.ndarray] = disk.get_many(namespace, todo) if disk is not None else {}
            run = [t for t in todo if t not in results]
            done = len(texts) - len(run)
            if progress:
                progress(done, len(texts))

            def keep(batch: list[str], values: Sequence[np.ndarray]) -> None:
                nonlocal done
                results.update(zip(batch, values))
                if disk is not None:
                    disk.put_many(namespace, zip(batch, values))
                self.forward_texts += len(batch)
                done += len(batch)
                if progress:
                    progress(done, len(texts))

            if kind == "sentence-transformer":
                for start in range(0, len(run), 8 * self.batch_size):  # stored as it goes
                    chunk = run[start : start + 8 * self.batch_size]
                    keep(chunk, list(loaded.model.encode(
                        chunk, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True,
                        show_progress_bar=False,
                    ).astype(np.float64)))
            elif kind in CUSTOM_KINDS:
                for start in range(0, len(run), self.batch_size):
                    chunk = run[start : start + self.batch_size]
                    keep(chunk, CUSTOM_KINDS[kind].run(loaded, chunk))
            elif run:
                for batch_texts, values in run_batches(self, loaded, run, pairs):
                    keep(batch_texts, values)
            return [results[t] for t in todo]

        out = self._memo.get_many([(*memo_key, t) for t in texts], compute)
        if progress:
            progress(len(texts), len(texts))
        return np.stack(out) if out else np.zeros((0, 0))

    def plan_batches(self, lengths: Sequence[int]) -> list[list[int]]:
        """:func:`detox_core.models.batching.plan_batches` with this pool's token budget and
        at most ``8 x batch_size`` texts a batch."""
        return plan_batches(lengths, self.token_budget, 8 * self.batch_size)

    def clear_memo(self) -> None:  # the in-memory results (the on-disk cache keeps its own)
        self._memo.clear()


_DEFAULT_POOL: ModelPool | None = None
_DEFAULT_LOCK = threading.Lock()


def default_pool() -> ModelPool:
    """The process-wide pool (the app wraps it in ``st.cache_resource``)."""
    global _DEFAULT_POOL
    with _DEFAULT_LOCK:
        if _DEFAULT_POOL is None:
            _DEFAULT_POOL = ModelPool(disk_cache=default_disk_cache())
        return _DEFAULT_POOL
