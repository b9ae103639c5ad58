"""The client's address: X-Forwarded-For believed only from trusted proxies."""

from __future__ import annotations

import pytest

from detox_core.server.addresses import UNKNOWN, client_address
from detox_core.errors import DetoxInputError

LOOP = ["127.0.0.1", "::1"]


def test_a_direct_client_cannot_forge_its_address():
    # Connected straight to the app: the header is the client's own text.
    assert client_address("203.0.113.7", "1.2.3.4", LOOP) == "203.0.113.7"


def test_behind_nginx_the_entry_nginx_appended_is_the_client():
    # nginx's $proxy_add_x_forwarded_for: "<what the client sent>, <the client nginx saw>".
    assert client_address("127.0.0.1", "1.2.3.4, 198.51.100.9", LOOP) == "198.51.100.9"
    assert client_address(None, ["1.2.3.4", "198.51.100.9"], LOOP) == "198.51.100.9"  # Streamlit's loopback


def test_a_chain_of_trusted_proxies_is_walked_from_the_right():
    trusted = ["127.0.0.1", "10.0.0.0/8"]
    assert client_address("127.0.0.1", "6.6.6.6, 198.51.100.9, 10.1.2.3", trusted) == "198.51.100.9"
    # A garbled entry ends the walk: what is right of it was appended by trusted proxies.
    assert client_address("127.0.0.1", "198.51.100.9, evil, 10.1.2.3", trusted) == "10.1.2.3"


def test_no_trusted_proxy_means_the_header_is_ignored():
    assert client_address("127.0.0.1", "198.51.100.9", []) == "127.0.0.1"


def test_ports_and_mapped_addresses():
    assert client_address("127.0.0.1", "198.51.100.9:5555", LOOP) == "198.51.100.9"
    assert client_address("127.0.0.1", "[2001:db8::1]:443", LOOP) == "2001:db8::1"
    assert client_address("::ffff:203.0.113.7", "", LOOP) == "203.0.113.7"


def test_the_setting_is_read_and_checked(monkeypatch):
    monkeypatch.setenv("DETOX_TRUSTED_PROXIES", "192.168.0.0/16")
    assert client_address("192.168.1.5", "198.51.100.9") == "198.51.100.9"
    assert client_address("127.0.0.1", "198.51.100.9") == "127.0.0.1"  # loopback no longer trusted
    monkeypatch.setenv("DETOX_TRUSTED_PROXIES", "nginx-host")
    with pytest.raises(DetoxInputError, match="DETOX_TRUSTED_PROXIES"):
        client_address("192.168.1.5", "198.51.100.9")
    monkeypatch.delenv("DETOX_TRUSTED_PROXIES")
    assert client_address("not-an-address") == "not-an-address" and client_address("") != UNKNOWN
