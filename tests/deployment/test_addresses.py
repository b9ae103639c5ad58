"""The client's address: X-Forwarded-For believed only from trusted proxies."""

from __future__ import annotations

import pytest

from detox_core.deployment.addresses import UNKNOWN, client_address
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


def test_an_ipv6_client_is_counted_by_its_64_network(monkeypatch):
    """Before: 80 addresses of one /64 counted as 80 clients and filled every visitor place."""
    from detox_core.deployment.addresses import client_key
    from detox_core.ui.app.visitors import SessionCounter

    monkeypatch.delenv("DETOX_IPV6_PREFIX", raising=False)
    one_net = [f"2001:db8:1:2:{k:x}::{k + 1:x}" for k in range(80)]
    assert {client_key(a) for a in one_net} == {"2001:db8:1:2::/64"}
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")  # the next /64: another client
    assert client_key("203.0.113.7") == "203.0.113.7" and client_key("unknown client") == "unknown client"
    assert client_key("::1") == "::1"  # this machine
    counter = SessionCounter(20)
    assert sum(counter.admit(client_key(a), f"tab-{k}") for k, a in enumerate(one_net)) == 20
    assert counter.admit(client_key("2001:db8:9::1"), "another-subscriber")
    monkeypatch.setenv("DETOX_IPV6_PREFIX", "128")  # an operator who counts each address
    assert len({client_key(a) for a in one_net}) == 80
    monkeypatch.setenv("DETOX_IPV6_PREFIX", "48")
    assert {client_key(a) for a in one_net} == {"2001:db8:1::/48"}


def test_a_mapped_ipv4_behind_the_proxy_stays_an_ipv4_client(monkeypatch):
    from detox_core.deployment.addresses import client_address, client_key

    monkeypatch.delenv("DETOX_IPV6_PREFIX", raising=False)
    assert client_key(client_address("::ffff:203.0.113.9", "")) == "203.0.113.9"


@pytest.mark.parametrize("value", ["sixty-four", "16", "129", "-1"])
def test_an_ipv6_prefix_that_cannot_be_read_stops_the_app(monkeypatch, value):
    from detox_core.ui.app.settings_check import settings_problem

    monkeypatch.setenv("DETOX_IPV6_PREFIX", value)
    assert "DETOX_IPV6_PREFIX" in settings_problem(files=[]) and repr(value) in settings_problem(files=[])
