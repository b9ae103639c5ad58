"""Giving memory back to the system after a burst (uploads prepared, sessions ended).

Python frees its objects, but the C allocator (glibc's malloc) keeps the freed pages of
its heaps for later: after eight visitors' corpus uploads the process stayed 600 MB
larger a minute after their tabs closed. :func:`release_free_memory` collects garbage and
asks glibc to return what it can (``malloc_trim``); elsewhere (macOS, musl) it only
collects.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import threading
from functools import lru_cache

log = logging.getLogger(__name__)
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _trim():
    """glibc's ``malloc_trim``, or None where the C library has none."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def release_free_memory() -> bool:
    """Collect garbage and return the allocator's free pages to the system; True where the
    allocator could be asked (glibc). One call at a time; a call while one runs returns."""
    if not _lock.acquire(blocking=False):
        return False
    try:
        gc.collect()
        trim = _trim()
        if trim is None:
            return False
        trim(0)
        return True
    finally:
        _lock.release()
