"""Annotators' joins: the sign-in throttle's rules for an access code, a name and a
password (:class:`JoinGuard`), over :mod:`detox_core.deployment.throttle`'s counts."""

from __future__ import annotations

from dataclasses import dataclass

from detox_core.deployment.throttle import FAILED, OK, VOID, Attempt, LoginThrottle, SharedLoginThrottle


@dataclass(frozen=True)
class JoinAttempt:
    """A join's reserved tries (:meth:`JoinGuard.reserve`), settled by :meth:`JoinGuard.settle`."""

    pair: Attempt
    address: Attempt
    new_name: Attempt | None = None


@dataclass
class JoinGuard:
    """Annotators' joins: a throttle that punishes guessing, not typos.

    Only two failures count: a wrong password for a name that exists in the project
    (someone may be guessing it) and an access code no project has (someone may be guessing
    codes). A short password, a refused name, a closed project are said and cost nothing.

    - Per (address, name): five wrong passwords for one name from one address lock that
      name, from that address, for 15 minutes (1, 2, 4, 8 s between the first ones). The
      others behind the same address (a lab behind one NAT) join as before.
    - Per address: :data:`ADDRESS_FAILURES` counted failures within 15 minutes (over every
      name and code) stop the address's joins for 15 minutes; each costs at most
      :data:`ADDRESS_DELAY_S` seconds before then.
    - Per name, from every address: :class:`LoginThrottle`'s account rule (20 wrong passwords
      from several addresses slow the addresses the name never joined from).
    - New names (with ``new_names``): per address, :data:`NEW_NAMES_PER_ADDRESS` within 15
      minutes; per project, :data:`NEW_NAMES_PER_PROJECT` within 15 minutes, after which an
      address may add one new name every 30 seconds. A lab of 30 behind one address joins
      together; a script adding a fake annotator a second is stopped at 30.

    Every try is reserved (:meth:`reserve`) before its password is checked and settled
    after (:meth:`settle`), so simultaneous tries are counted together (60 at once from one
    address get one password checked, not 43).

    Args:
        pair: the throttle of (address, name) pairs, with the name's account rule.
        address: the throttle of whole addresses (its thresholds: :meth:`address_rules`).
        new_names: the throttle of new names (its thresholds: :meth:`new_name_rules`).
    """

    pair: LoginThrottle | SharedLoginThrottle
    address: LoginThrottle | SharedLoginThrottle
    new_names: LoginThrottle | SharedLoginThrottle | None = None

    #: Counted failures of one address (every name and code) that stop its joins.
    ADDRESS_FAILURES = 20
    #: The longest wait of an address between two counted failures before then.
    ADDRESS_DELAY_S = 4.0
    #: New names one address may add to projects within 15 minutes.
    NEW_NAMES_PER_ADDRESS = 30
    #: New names one project takes within 15 minutes before each address is slowed.
    NEW_NAMES_PER_PROJECT = 200

    @classmethod
    def address_rules(cls) -> dict:
        return {"max_failures": cls.ADDRESS_FAILURES, "max_delay_s": cls.ADDRESS_DELAY_S}

    @classmethod
    def new_name_rules(cls) -> dict:
        # No wait between two new names (a lab joins together); the count bounds a script.
        return {"max_failures": cls.NEW_NAMES_PER_ADDRESS, "max_delay_s": 0.0,
                "account_failures": cls.NEW_NAMES_PER_PROJECT}

    @staticmethod
    def keys(client: str, code: str, name_key: str) -> tuple[str, str, str]:
        """(pair key, address key, account key) of a join."""
        code = code.strip().lower()
        return f"annotator:{client}:{name_key}", f"annotator-address:{client}", f"annotator:{code}:{name_key}"

    def wait(self, client: str, code: str, name_key: str) -> tuple[float, str]:
        """Seconds to wait before this join is tried (0: go ahead), and what is slowed:
        ``"name"`` (this name from this address) or ``"address"`` (every join from it)."""
        pair, address, account = self.keys(client, code, name_key)
        by_address = self.address.wait_s(address)
        by_name = self.pair.wait_s(pair, account)
        return (by_name, "name") if by_name > 0 and by_name >= by_address else (by_address, "address")

    def reserve(self, client: str, code: str, name_key: str,
                new_name: bool = False) -> tuple[float, str, JoinAttempt | None]:
        """Reserve this join's tries: ``(0, "", attempt)`` to go ahead (then :meth:`settle`),
        or ``(seconds, what, None)`` with what is slowed: ``"name"``, ``"address"`` or, for a
        ``new_name``, ``"new names"``."""
        pair, address, account = self.keys(client, code, name_key)
        by_name, held_pair = self.pair.reserve(pair, account)
        if held_pair is None:
            return max(by_name, self.address.wait_s(address)), "name", None
        by_address, held_address = self.address.reserve(address)
        if held_address is None:
            self.pair.settle(held_pair, VOID)
            return by_address, "address", None
        held_new = None
        if new_name and self.new_names is not None:
            by_new, held_new = self.new_names.reserve(f"annotator-new:{client}", f"annotator-new:{code.strip().lower()}")
            if held_new is None:
                self.pair.settle(held_pair, VOID)
                self.address.settle(held_address, VOID)
                return by_new, "new names", None
        return 0.0, "", JoinAttempt(held_pair, held_address, held_new)

    def settle(self, attempt: JoinAttempt, outcome: str) -> None:
        """How the join ended: ``"joined"``, ``"password"`` (a wrong password for an existing
        name), ``"code"`` (no project has the code) or ``"other"`` (said, not counted)."""
        self.pair.settle(attempt.pair, {"joined": OK, "password": FAILED}.get(outcome, VOID))
        self.address.settle(attempt.address, FAILED if outcome in ("password", "code") else VOID)
        if attempt.new_name is not None and self.new_names is not None:
            # A new name that joined stays counted (never OK: that would forget the address's count).
            self.new_names.settle(attempt.new_name, FAILED if outcome == "joined" else VOID)

    def failed(self, client: str, code: str, name_key: str, kind: str) -> None:
        """A counted failure: ``kind`` "password" (a wrong password for an existing name)
        or "code" (an unknown access code)."""
        pair, address, account = self.keys(client, code, name_key)
        if kind == "password":
            self.pair.failed(pair, account)
        self.address.failed(address)

    def succeeded(self, client: str, code: str, name_key: str) -> None:
        pair, _address, account = self.keys(client, code, name_key)
        self.pair.succeeded(pair, account)
