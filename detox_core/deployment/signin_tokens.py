"""Signed, expiring sign-in tokens: an organizer stays signed in across reloads and tabs.

A token says who signed in (a role), when, until when, and a random nonce; it is signed
with HMAC-SHA256 under a key made of the server's secret and a hash of the role's
password, so that

- nobody can make or alter one without the server's secret (a tampered token fails);
- changing the organizer password ends every session signed in with the old one;
- signing out revokes the token's nonce where every app process sees it (a file per
  nonce under the data folder), so a copied cookie stops working too;
- it expires after :data:`LIFETIME_S` whatever happens.

The browser keeps it in an ``HttpOnly`` cookie (:data:`COOKIE`) that the server sets
(:mod:`detox_core.ui.app.asgi`), so no script of the page can read it. The page asks for the
cookie with a **ticket** (:meth:`SignInTokens.ticket`): a random one-time word that the
server redeems once, within :data:`TICKET_S` seconds, and only for a request from the
client address that signed in, for the token or for clearing the cookie; the token itself
never reaches the page, and a ticket a script sends elsewhere is worth nothing there.

The token holds no password and no hash of one. The server's secret is
``$DETOX_SESSION_SECRET`` when set, else a random key kept in
``<data>/sessions/secret`` (created once, readable by the server's user only), shared by
every process of a deployment that shares the data folder. Where that folder cannot be
written, the key lives in the process (tokens then hold for that process only).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
from pathlib import Path

from detox_core import config

#: How long a sign-in lasts (12 hours: a working day of an organizer).
LIFETIME_S = 12 * 3600
#: The sign-in cookie's name (its value is a token, no password in it). Cookies of the
#: earlier name were written by a page script and are no longer read.
COOKIE = "detox_signin"
#: How long a ticket for the cookie may wait to be redeemed.
TICKET_S = 60
#: What a ticket asks of the server: set the cookie to its token, or clear it.
TICKET_ACTIONS = ("set", "clear")
_NONCE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
_TICKET = re.compile(r"^[A-Za-z0-9_-]{32,64}$")
_process_secret = secrets.token_bytes(32)
_lock = threading.Lock()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SignInTokens:
    """Issue, check and revoke sign-in tokens of one server (see the module docstring).

    Args:
        folder: where the server's secret and the revoked nonces are kept (default:
            ``<data>/sessions``).
        lifetime_s: how long a token is valid.
    """

    def __init__(self, folder: Path | None = None, lifetime_s: int = LIFETIME_S) -> None:
        self.folder = Path(folder) if folder is not None else config.data_dir() / "sessions"
        self.lifetime_s = lifetime_s
        self._secret: bytes | None = None

    # ------------------------------------------------------------------ the server's secret

    def server_secret(self) -> bytes:
        if self._secret is not None:
            return self._secret
        env = config.session_secret()
        if env:
            self._secret = hashlib.sha256(env.encode()).digest()
            return self._secret
        path = self.folder / "secret"
        with _lock:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                try:  # created once, atomically: concurrent processes end up with the same key
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with os.fdopen(fd, "wb") as f:
                        f.write(secrets.token_bytes(32))
                except FileExistsError:
                    pass
                key = path.read_bytes()
                self._secret = key if len(key) >= 32 else _process_secret
            except OSError:  # a read-only data folder: this process's own key
                self._secret = _process_secret
        return self._secret

    def _key(self, password: str) -> bytes:
        return hmac.new(self.server_secret(), hashlib.sha256(password.encode()).digest(), hashlib.sha256).digest()

    # ------------------------------------------------------------------ tokens

    def issue(self, role: str, password: str, now: float | None = None) -> str:
        """A token for ``role``, signed under ``password`` (the role's current password)."""
        now = time.time() if now is None else now
        body = json.dumps({"r": role, "i": int(now), "e": int(now) + self.lifetime_s,
                           "n": secrets.token_urlsafe(18)}, separators=(",", ":")).encode()
        payload = _b64(body)
        mac = hmac.new(self._key(password), payload.encode(), hashlib.sha256).hexdigest()
        return f"{payload}.{mac}"

    def verify(self, token: str | None, password: str, now: float | None = None) -> str | None:
        """The role of a valid token, else None (malformed, tampered, signed under another
        password or server secret, expired, or revoked)."""
        claims = self._claims(token, password)
        if claims is None:
            return None
        now = time.time() if now is None else now
        if not (claims["i"] - 60 <= now < claims["e"]) or self.revoked(claims["n"]):
            return None
        return claims["r"]

    def revoke(self, token: str | None, password: str) -> bool:
        """Revoke a valid token (sign out): it no longer verifies, in any process."""
        claims = self._claims(token, password)
        if claims is None:
            return False
        revoked = self.folder / "revoked"
        try:
            revoked.mkdir(parents=True, exist_ok=True)
            (revoked / claims["n"]).write_text(str(claims["e"]), encoding="ascii")
            self._prune(revoked)
        except OSError:  # a read-only data folder: remembered by this process
            _memory_revoked.add(claims["n"])
        return True

    def revoked(self, nonce: str) -> bool:
        return nonce in _memory_revoked or (self.folder / "revoked" / nonce).exists()

    def _claims(self, token: str | None, password: str) -> dict | None:
        if not token or not isinstance(token, str) or len(token) > 1024 or token.count(".") != 1:
            return None
        payload, mac = token.split(".")
        expected = hmac.new(self._key(password), payload.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(mac.encode(), expected.encode()):
            return None
        try:
            claims = json.loads(_unb64(payload))
        except (ValueError, UnicodeDecodeError):
            return None
        if (not isinstance(claims, dict) or not isinstance(claims.get("r"), str)
                or not all(isinstance(claims.get(k), int) for k in ("i", "e"))
                or not isinstance(claims.get("n"), str) or not _NONCE.match(claims["n"])):
            return None
        return claims

    # ------------------------------------------------------------------ cookie tickets

    def ticket(self, action: str, token: str = "", client: str = "", now: float | None = None) -> str:
        """A one-time ticket that the server's cookie route (:mod:`detox_core.ui.app.asgi`)
        redeems for ``action`` ("set" the cookie to ``token``, or "clear" it), for a
        request from ``client`` (the address that signed in) only.

        Kept as a file under the sessions folder (readable by the server's user only), so
        that any process of the deployment can redeem it (in this process alone where that
        folder cannot be written)."""
        if action not in TICKET_ACTIONS:
            raise ValueError(f"unknown cookie action {action!r}")
        now = time.time() if now is None else now
        ticket = secrets.token_urlsafe(32)
        record = json.dumps({"a": action, "t": token, "c": client, "e": now + TICKET_S})
        folder = self.folder / "tickets"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(folder / self._ticket_name(ticket), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(record)
        except OSError:
            with _lock:
                for name in [n for n, r in _memory_tickets.items() if json.loads(r)["e"] < now]:
                    del _memory_tickets[name]
                _memory_tickets[self._ticket_name(ticket)] = record
        else:
            self._prune_tickets(folder, now)
        return ticket

    def redeem(self, ticket: str | None, client: str = "", now: float | None = None) -> tuple[str, str] | None:
        """``(action, token)`` of a valid ticket asked for by ``client``, once: a second
        redemption, an expired, unknown or malformed ticket, or one asked for from another
        address give None (and a ticket tried from another address is spent)."""
        if not isinstance(ticket, str) or not _TICKET.match(ticket):
            return None
        now = time.time() if now is None else now
        name = self._ticket_name(ticket)
        with _lock:
            record = _memory_tickets.pop(name, None)
        if record is None:
            path = self.folder / "tickets" / name
            taken = path.with_name(f"{name}.{os.getpid()}.{secrets.token_hex(4)}")
            try:
                os.rename(path, taken)  # one process wins the rename: the ticket is used once
            except OSError:
                return None
            try:
                record = taken.read_text(encoding="ascii")
            except OSError:
                return None
            finally:
                taken.unlink(missing_ok=True)
        try:
            claims = json.loads(record)
            action, token, owner, expiry = claims["a"], claims["t"], claims["c"], float(claims["e"])
        except (ValueError, KeyError, TypeError):
            return None
        if action not in TICKET_ACTIONS or not isinstance(token, str) or now >= expiry:
            return None
        if not hmac.compare_digest(str(owner).encode(), str(client).encode()):
            return None
        return action, token

    @staticmethod
    def _ticket_name(ticket: str) -> str:
        # The file is named by the ticket's hash: a listing of the folder redeems nothing.
        return hashlib.sha256(ticket.encode("ascii")).hexdigest()

    @staticmethod
    def _prune_tickets(folder: Path, now: float) -> None:
        """Drop tickets never redeemed (a tab closed at once) once they have expired."""
        try:
            paths = list(folder.iterdir())[:200]
        except OSError:
            return
        for path in paths:
            try:
                if path.stat().st_mtime < now - 2 * TICKET_S:
                    path.unlink(missing_ok=True)
            except OSError:
                continue

    @staticmethod
    def _prune(revoked: Path, now: float | None = None) -> None:
        """Drop revocations of tokens that have expired anyway (they cannot verify)."""
        now = time.time() if now is None else now
        for path in list(revoked.iterdir())[:1000]:
            try:
                if int(path.read_text(encoding="ascii") or 0) < now:
                    path.unlink(missing_ok=True)
            except (OSError, ValueError):
                continue


_memory_revoked: set[str] = set()
_memory_tickets: dict[str, str] = {}
