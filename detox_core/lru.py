"""A least-recently-used cache bounded by bytes, safe to share between threads.

Every cache that user text can fill (the model pool's per-text results, chrF n-gram
counts, word lookups of the embedded preset) is one of these: an anonymous visitor
typing 10,000 distinct sentences makes the oldest entries go, never the server's
memory grow past the budget. Streamlit runs sessions as threads, hence the lock.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

import numpy as np
from cachetools import LRUCache

from detox_core import config

V = TypeVar("V")

_MISSING = object()


def approx_bytes(obj: Any) -> int:
    """A quick estimate of the memory ``obj`` holds (containers one level deep,
    numpy arrays by their buffers); enough to keep a cache near its budget."""
    if isinstance(obj, np.ndarray):
        return obj.nbytes + 112
    if isinstance(obj, (str, bytes, int, float, bool)) or obj is None:
        return sys.getsizeof(obj)
    if isinstance(obj, dict):
        return sys.getsizeof(obj) + sum(approx_bytes(k) + approx_bytes(v) for k, v in obj.items())
    if isinstance(obj, (tuple, list, set, frozenset)):
        return sys.getsizeof(obj) + sum(approx_bytes(x) for x in obj)
    return sys.getsizeof(obj)


class _Entries(LRUCache):
    """cachetools' LRU cache of ``(value, bytes)`` entries, weighed by their bytes, counting what it
    drops to stay within its budget."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(maxsize=max_bytes, getsizeof=lambda entry: entry[1])
        self.evictions = 0

    def popitem(self):
        item = super().popitem()
        self.evictions += 1
        return item


class ByteLRU(Generic[V]):
    """Key -> value, evicting the least recently used entries past ``max_bytes``: cachetools'
    ``LRUCache`` weighed by each entry's bytes (key and value), behind a lock (Streamlit's sessions
    are threads; cachetools' caches are not thread-safe).

    Args:
        max_bytes: the budget; an entry larger than it on its own is not stored.
        sizeof: bytes of one entry from ``(key, value)``; :func:`approx_bytes` of both
            by default.

    Attributes:
        bytes: the estimated bytes held now (always <= ``max_bytes``).
        evictions: entries dropped to stay within the budget, since creation.
    """

    def __init__(self, max_bytes: int, sizeof: Callable[[Hashable, V], int] | None = None) -> None:
        self._sizeof = sizeof or (lambda k, v: approx_bytes(k) + approx_bytes(v) + 64)
        self._lock = threading.Lock()
        self._data = _Entries(0)
        self.max_bytes = max_bytes

    @property
    def max_bytes(self) -> int:
        return int(self._data.maxsize)

    @max_bytes.setter
    def max_bytes(self, value: int) -> None:
        """A new budget: the entries kept, the oldest dropped until they fit (cachetools fixes a
        cache's size when it is made, so the entries move to one of the new size)."""
        if value < 0:
            raise ValueError(f"max_bytes must be >= 0, got {value}")
        with self._lock:
            old, self._data = self._data, _Entries(int(value))
            self._data.evictions = old.evictions
            while old:  # least recently used first, so that the new cache keeps the order of use
                key, entry = old.popitem()
                if entry[1] <= self._data.maxsize:
                    self._data[key] = entry

    @property
    def bytes(self) -> int:
        return int(self._data.currsize)

    @property
    def evictions(self) -> int:
        return self._data.evictions

    def get(self, key: Hashable, default: Any = None) -> V | Any:
        """The value of ``key`` (marked as recently used), or ``default``."""
        with self._lock:
            entry = self._data.get(key, _MISSING)
        return default if entry is _MISSING else entry[0]

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._data

    def put(self, key: Hashable, value: V) -> None:
        """Store ``value`` under ``key``, evicting the oldest entries to fit."""
        size = int(self._sizeof(key, value))
        with self._lock:
            self._data.pop(key, None)
            if size <= self._data.maxsize:
                self._data[key] = (value, size)

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> V:
        """The cached value of ``key``, computing and storing it when missing (the
        computation runs outside the lock: two threads may both compute it)."""
        value = self.get(key, _MISSING)
        if value is _MISSING:
            value = compute()
            self.put(key, value)
        return value

    def get_many(self, keys: Sequence[Hashable], compute: Callable[[list[Hashable]], Sequence[V]]) -> list[V]:
        """The values of ``keys``, in order. The missing ones (each once) are computed in
        one call, ``compute(missing_keys)`` returning their values in that order, and
        stored; they are returned even when the budget cannot keep them."""
        found: dict[Hashable, V] = {}
        for key in dict.fromkeys(keys):
            value = self.get(key, _MISSING)
            if value is not _MISSING:
                found[key] = value
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        if missing:
            for key, value in zip(missing, compute(missing)):
                self.put(key, value)
                found[key] = value
        return [found[k] for k in keys]

    def clear(self) -> None:
        with self._lock:
            evictions = self._data.evictions
            self._data = _Entries(int(self._data.maxsize))
            self._data.evictions = evictions

    def __len__(self) -> int:
        return len(self._data)


#: Each cache's share of the budget.
CACHE_SHARES = {"pool": 0.2, "sentence_vectors": 0.05, "similar": 0.1, "embedded": 0.1, "word_pieces": 0.1,
                "chrf": 0.1, "word_vectors": 0.1, "word_info": 0.1, "uploads": 0.15}


def cache_budget(name: str) -> int:
    """Bytes granted to cache ``name``: its share of ``DETOX_CACHE_MB`` (default 512 MB).

    Raises:
        ValueError: ``DETOX_CACHE_MB`` is not a non-negative number.
    """
    return int(config.cache_mb() * CACHE_SHARES[name] * 1024 * 1024)
