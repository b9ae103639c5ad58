"""Annotators' passwords: argon2id hashes (argon2-cffi), their parameters stored inside them.

A new password is stored as argon2-cffi's encoded argon2id hash
(``$argon2id$v=19$m=65536,t=3,p=4$<salt>$<hash>``, about 100 characters) at the library's
default parameters: RFC 9106's second recommended option (64 MiB of memory, 3 passes,
4 lanes, a 16-byte salt). Hashes of older releases (``salt$hash`` in hex: scrypt, n=2^14,
r=8, p=1, no parameters stored) still verify; :func:`needs_rehash` tells the store to replace
such a hash, or an argon2 one whose parameters differ from the current ones, by
``hash_secret(secret, replacing=old)`` at the annotator's next successful sign-in (the only
moment the password is known).

:func:`password_id` names a password as set, not as hashed: a new password changes it (which
signs out the annotator's other tabs, :mod:`detox_core.ui.app.tab_session`), an upgrade of the
hash of the same password does not (the first 8 bytes of the new salt carry it).

Both kinds are compared in constant time (argon2's own verification; ``hmac.compare_digest``
for scrypt).

Every argon2 hash and check of a process runs on its hashing threads (:func:`_argon2`): one
per four cores (a hash runs four lanes over 64 MiB), at a lower priority than the pages
(``DETOX_HASHING_NICE``, default 10, on Linux). A flood of joins under new names (a script
adding a fake annotator a second) then takes the cores the pages leave idle, not the honest
annotator's page saves; an honest join waits its turn behind at most the flood's hashes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import os
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from detox_core import config

#: Shortest annotator password accepted.
MIN_SECRET_CHARS = 6

#: argon2id at argon2-cffi's defaults (RFC 9106, low-memory option); thread-safe.
_HASHER = PasswordHasher()
_ARGON2 = "$argon2"
_ID_BYTES = 8

_log = logging.getLogger(__name__)
_T = TypeVar("_T")
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def hashing_threads() -> int:
    """argon2 hashes and checks one process runs at once: one per four cores (each runs
    :attr:`PasswordHasher.parallelism` lanes, 4, over 64 MiB); the others wait their turn."""
    return max(1, (os.cpu_count() or 1) // _HASHER.parallelism)


def _lower_priority(nice: int) -> None:
    """Run this thread (and the lanes argon2 starts from it, which inherit it) ``nice`` above
    its niceness: on Linux a thread's niceness is its own."""
    if not nice:
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
    except (AttributeError, OSError) as err:  # not Linux: the hashes run at the pages' priority
        _log.info("password hashing runs at the pages' priority (%s)", err)


def _argon2(call: Callable[[], _T]) -> _T:
    """``call()`` on the process's hashing threads (:func:`hashing_threads`, lower
    priority: :func:`_lower_priority`); the caller waits for it."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(hashing_threads(), thread_name_prefix="detox-argon2",
                                       initializer=_lower_priority, initargs=(config.hashing_nice(),))
        pool = _POOL
    return pool.submit(call).result()


def hash_secret(secret: str, replacing: str | None = None) -> str:
    """The stored form of an annotator's password: an encoded argon2id hash, parameters and
    a random salt included.

    Args:
        replacing: the stored hash of the same password that this one replaces (an upgrade
            at sign-in): the new hash keeps its :func:`password_id`.
    """
    if replacing is None:
        return _argon2(lambda: _HASHER.hash(secret))
    kept = bytes.fromhex(password_id(replacing))
    salt = kept + secrets.token_bytes(_HASHER.salt_len - len(kept))
    return _argon2(lambda: _HASHER.hash(secret, salt=salt))


def check_secret(secret: str, stored: str) -> bool:
    """Whether ``secret`` is the password stored as ``stored`` (an argon2 hash, or an older
    release's scrypt ``salt$hash``); compared in constant time. A malformed ``stored`` matches
    nothing."""
    if stored.startswith(_ARGON2):
        try:
            return _argon2(lambda: _HASHER.verify(stored, secret))
        except (VerificationError, InvalidHashError):
            return False
    try:
        salt, digest = stored.split("$", 1)
        got = _scrypt(secret, bytes.fromhex(salt))
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)


def needs_rehash(stored: str) -> bool:
    """Whether ``stored`` should be replaced by a new hash of the same password: an older
    release's scrypt hash, or an argon2 hash of other parameters than the current ones."""
    if not stored.startswith(_ARGON2):
        return True
    try:
        return _HASHER.check_needs_rehash(stored)
    except InvalidHashError:
        return True


def password_id(stored: str) -> str:
    """16 hex digits naming the password stored as ``stored``: they change when a new password
    is set, not when the same password's hash is upgraded. Older releases' hashes keep the
    digest they had (the first 16 hex digits of the SHA-256 of the stored text)."""
    if stored.startswith(_ARGON2):
        salt = stored.split("$")[-2]
        try:
            head = base64.b64decode(salt + "=" * (-len(salt) % 4))[:_ID_BYTES]
        except (binascii.Error, ValueError):
            head = b""
        if len(head) == _ID_BYTES:
            return head.hex()
    return hashlib.sha256(stored.encode("utf-8")).hexdigest()[:2 * _ID_BYTES]


def _scrypt(secret: str, salt: bytes) -> bytes:
    """The scrypt digest older releases stored (kept to verify their hashes, never written)."""
    return hashlib.scrypt(secret.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
