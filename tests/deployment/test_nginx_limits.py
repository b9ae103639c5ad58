"""The shipped nginx configuration against one address's slow POSTs: before, 4,000 of them
(a byte every 20 s) held about 1,930 connections and a new visitor's page never drew. Now
one address holds at most ``connections_per_address`` connections (the rest get 429 at
once), a client that pauses 10 s is cut off, and the visitor's page comes at once."""

from __future__ import annotations

import time

import pytest

from detox_core.deployment import deploy
from tests.ci_skips import required
from tests.deployment.nginx_attack import NGINX, page_time, proxy, slow_posts

pytestmark = pytest.mark.skipif(NGINX is None and not required("DETOX_REQUIRE_DEPLOY"),
                                reason="nginx is not installed (apt-get install nginx)")


def test_one_address_of_slow_posts_neither_holds_the_proxy_nor_stalls_a_visitor(tmp_path):
    limit = deploy.connections_per_address(1)
    with proxy(tmp_path / "run") as port:
        attack = slow_posts(port, 3 * limit)
        try:
            assert len(attack.sockets) <= limit, f"{len(attack.sockets)} slow POSTs held (limit {limit})"
            assert attack.refused >= 2 * limit - 5  # told at once (429), not left hanging
            took = page_time(port, timeout=10)
            assert took is not None and took < 2, f"the visitor's page took {took} s during the attack"
            time.sleep(deploy.CLIENT_PAUSE_S + 3)  # the attacker sends nothing more
            assert attack.still_open() == 0, "nginx kept connections that paused past client_body_timeout"
        finally:
            attack.close()
        assert page_time(port, timeout=10) is not None


def test_without_the_limits_the_same_attack_holds_every_connection(tmp_path):
    """The baseline (``limits=False``, the configuration before): every slow POST is held, past
    the pause that the limits cut off. It shows that the test above measures the limits."""
    limit = deploy.connections_per_address(1)
    with proxy(tmp_path / "run", limits=False) as port:
        attack = slow_posts(port, 2 * limit)
        try:
            assert len(attack.sockets) == 2 * limit and attack.refused == 0
            time.sleep(deploy.CLIENT_PAUSE_S + 3)
            assert attack.still_open() == 2 * limit
        finally:
            attack.close()
