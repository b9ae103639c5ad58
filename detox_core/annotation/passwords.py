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
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

#: Shortest annotator password accepted.
MIN_SECRET_CHARS = 6

#: argon2id at argon2-cffi's defaults (RFC 9106, low-memory option); thread-safe.
_HASHER = PasswordHasher()
_ARGON2 = "$argon2"
_ID_BYTES = 8


def hash_secret(secret: str, replacing: str | None = None) -> str:
    """The stored form of an annotator's password: an encoded argon2id hash, parameters and
    a random salt included.

    Args:
        replacing: the stored hash of the same password that this one replaces (an upgrade
            at sign-in): the new hash keeps its :func:`password_id`.
    """
    if replacing is None:
        return _HASHER.hash(secret)
    kept = bytes.fromhex(password_id(replacing))
    return _HASHER.hash(secret, salt=kept + secrets.token_bytes(_HASHER.salt_len - len(kept)))


def check_secret(secret: str, stored: str) -> bool:
    """Whether ``secret`` is the password stored as ``stored`` (an argon2 hash, or an older
    release's scrypt ``salt$hash``); compared in constant time. A malformed ``stored`` matches
    nothing."""
    if stored.startswith(_ARGON2):
        try:
            return _HASHER.verify(stored, secret)
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
