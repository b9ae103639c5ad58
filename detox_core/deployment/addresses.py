"""Who a request comes from: the client's address, believing proxies only when trusted.

A browser can send any ``X-Forwarded-For`` header it likes, so the header is believed
only from the reverse proxies the operator names (``DETOX_TRUSTED_PROXIES``; by default
the loopback addresses, i.e. a proxy on the same machine). nginx's usual
``proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`` *appends* the address it
saw to whatever the client sent, so the first entry is the client's to forge; the client
is the rightmost entry that is not a trusted proxy.

Every per-address limit (places, sign-in and join throttles, the engine budget, uploads)
counts a client by :func:`client_key`: an IPv4 address, or the IPv6 network of
``DETOX_IPV6_PREFIX`` bits (64) around an IPv6 address, since one subscriber holds a whole
/64 and may send each request from another of its addresses.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from functools import lru_cache

from detox_core import config
from detox_core.errors import DetoxInputError

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: What a request without any address is called (a test, a script).
UNKNOWN = "unknown client"


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple[_Network, ...]:
    out = []
    for entry in entries:
        try:
            out.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise DetoxInputError(f"{config.TRUSTED_PROXIES_ENV}: {entry!r} is not an address or a network "
                                  "such as 10.0.0.0/8") from None
    return tuple(out)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip().strip('"')
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":")[0]
    try:
        addr = ipaddress.ip_address(text)
    except ValueError:
        return None
    return addr.ipv4_mapped or addr if isinstance(addr, ipaddress.IPv6Address) else addr


def client_address(peer: str | None, forwarded_for: str | Iterable[str] = "",
                   trusted: Sequence[str] | None = None) -> str:
    """The client's address.

    Args:
        peer: the address of the connection's other end (a loopback connection may be
            given as None, as Streamlit does).
        forwarded_for: the ``X-Forwarded-For`` header(s).
        trusted: addresses or networks of trusted proxies (default:
            :func:`detox_core.config.trusted_proxies`).

    Returns:
        ``peer`` unless it is a trusted proxy; then the rightmost ``X-Forwarded-For``
        entry that is not a trusted proxy (an entry that is not an address ends the
        walk: it was forged or garbled before reaching a trusted proxy, so the entry
        after it is the last one known).
    """
    nets = _networks(tuple(config.trusted_proxies() if trusted is None else trusted))
    peer_addr = _address(peer) if peer else ipaddress.ip_address("127.0.0.1")
    if peer_addr is None:
        return UNKNOWN if not peer else peer
    if not any(peer_addr in n for n in nets):
        return str(peer_addr)
    if not isinstance(forwarded_for, str):
        forwarded_for = ",".join(forwarded_for)
    hops = [h for h in forwarded_for.split(",") if h.strip()]
    client = peer_addr
    for hop in reversed(hops):
        addr = _address(hop)
        if addr is None:
            break
        client = addr
        if not any(addr in n for n in nets):
            break
    return str(client)


def client_key(address: str, prefix: int | None = None) -> str:
    """What per-address limits count ``address`` as: itself for IPv4 (and anything that is
    not an address, such as :data:`UNKNOWN`), its ``/prefix`` network for IPv6 (default
    :func:`detox_core.config.ipv6_prefix`, 64; 128 counts each address)."""
    try:
        addr = ipaddress.ip_address(address)
    except ValueError:
        return address
    if addr.version == 4 or addr.is_loopback:  # ::1 is this machine, not a subscriber's network
        return address
    bits = config.ipv6_prefix() if prefix is None else prefix
    return str(addr) if bits >= 128 else str(ipaddress.ip_network(f"{addr}/{bits}", strict=False))
