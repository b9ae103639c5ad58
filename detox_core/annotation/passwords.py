"""Annotators' passwords: scrypt hashes with a random salt, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import os

#: Shortest annotator password accepted.
MIN_SECRET_CHARS = 6


def hash_secret(secret: str) -> str:
    """``salt$hash`` of an annotator's password (scrypt, a random 16-byte salt)."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
    return f"{salt.hex()}${digest.hex()}"


def check_secret(secret: str, stored: str) -> bool:
    """Whether ``secret`` is the password stored as ``salt$hash`` (constant-time compare)."""
    try:
        salt, digest = stored.split("$", 1)
        got = hashlib.scrypt(secret.encode(), salt=bytes.fromhex(salt), n=2**14, r=8, p=1, dklen=32)
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)
