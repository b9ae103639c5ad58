"""``python -m detox_core serve`` answers this machine only (127.0.0.1), as ``make run``
does, unless given ``--server.address``: a connection to one of the machine's other
addresses is refused; with ``--server.address 0.0.0.0`` it is answered."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from tests.e2e.util import start_app, stop_app

pytestmark = pytest.mark.e2e


def _other_address() -> str | None:
    """An IPv4 address of this machine that is not a loopback one (None when it has none)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the route's source address
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def _answers(address: str, port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{address}:{port}/_stcore/health", timeout=5) as r:
            return r.status == 200
    except OSError:
        return False


@pytest.mark.parametrize("extra, open_to_others", [((), False), (("--server.address", "0.0.0.0"), True)],
                         ids=["default", "server-address"])
def test_serve_listens_on_this_machine_only_unless_told(data_root, db_url, monkeypatch, extra, open_to_others):
    other = _other_address()
    if other is None:
        pytest.skip("this machine has no address besides the loopback one")
    monkeypatch.delenv("STREAMLIT_SERVER_ADDRESS", raising=False)
    proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url, "DETOX_ORGANIZER_PASSWORD": ""},
                          launcher=True, extra_args=extra)
    try:
        port = int(url.rsplit(":", 1)[1])
        assert _answers("127.0.0.1", port)
        assert _answers(other, port) is open_to_others
    finally:
        stop_app(proc)
