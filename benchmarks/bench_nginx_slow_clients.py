"""One address's slow POSTs against the nginx configuration ``detox deploy-nginx`` writes,
before (``limits=False`` and one worker: the configuration of earlier releases, without
per-address limits or slow-client timeouts) and after (the limits, a worker per core).

``--count`` POSTs to ``/_detox/beat`` from 127.0.0.2, each sending its headers and one byte
of its body and then nothing (the report sent 4,000, a byte every 20 s), in front of a
stand-in app process; meanwhile a visitor from 127.0.0.1 loads the page. Prints the
connections held, those refused at once (429), the visitor's page time, and what is still
held after the pause nginx allows (``CLIENT_PAUSE_S``). On this machine only; needs nginx.

    python benchmarks/bench_nginx_slow_clients.py [--count 2500]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from detox_core.deployment import deploy  # noqa: E402
from tests.deployment.nginx_attack import NGINX, page_time, proxy, slow_posts  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=2500, help="slow POSTs from the one address")
    args = ap.parse_args()
    if NGINX is None:
        sys.exit("nginx is not installed (apt-get install nginx)")
    print(f"{args.count} slow POSTs from one address; nginx {deploy.WORKER_CONNECTIONS} connections per worker; "
          f"limit per address {deploy.connections_per_address(1)}")
    for label, limits, workers in (("before", False, 1), ("after", True, "auto")):
        with tempfile.TemporaryDirectory() as run, proxy(Path(run), limits=limits, workers=workers) as port:
            quiet = page_time(port)
            t0 = time.perf_counter()
            attack = slow_posts(port, args.count)
            sent = time.perf_counter() - t0
            took = page_time(port, timeout=60)
            time.sleep(deploy.CLIENT_PAUSE_S + 3)
            left = attack.still_open()
            attack.close()
            print(f"  {label:6s}: held {len(attack.sockets)}, refused at once {attack.refused} (sent in {sent:.1f} s); "
                  f"visitor's page {'never (60 s)' if took is None else f'{took:.3f} s'} (quiet: {quiet:.3f} s); "
                  f"still held {deploy.CLIENT_PAUSE_S + 3} s later: {left}")


if __name__ == "__main__":
    main()
