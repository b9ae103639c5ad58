"""Server commands: ``health`` (does the database answer), ``deploy-nginx`` (nginx's
configuration for several app processes) and ``serve`` (the app, its models warming from
the start)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from detox_core import config, extras
from detox_core.cli.args import int_in
from detox_core.db import health, make_engine
from detox_core.deployment import deploy


def _cmd_health(args: argparse.Namespace) -> int:
    problem = health(make_engine(args.db))
    if problem is None:
        print("database: ok")
        return 0
    print(f"database: down ({problem.kind}): {problem}", file=sys.stderr)
    return 1


def _cmd_deploy_nginx(args: argparse.Namespace) -> int:
    try:
        if args.run_dir:
            conf = deploy.write_configs(Path(args.run_dir), args.processes, args.first_port, args.listen, args.workers)
            print(conf)
        else:
            print(deploy.site_config(args.processes, args.first_port, args.listen, server_name=args.server_name,
                                     servers=args.servers.split(",") if args.servers else None), end="")
    except ValueError as err:
        print(f"deploy-nginx: {err}", file=sys.stderr)
        return 2
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    extras.require("app", "The dashboard")
    if config.db_url().startswith(("postgresql", "postgres://")):  # said before the pages open, not on each
        extras.require("postgres", "DETOX_DB_URL's PostgreSQL database")
    # Imported here: Streamlit's server is heavy to import and only this command needs it.
    from detox_core.ui.app.serve import serve  # noqa: PLC0415

    return serve(args.streamlit_args)


def add_commands(sub) -> None:
    hc = sub.add_parser("health", help="check that the database answers (exit 1 when it does not)")
    hc.add_argument("--db", metavar="URL", help="database URL (default: $DETOX_DB_URL or data/detox.sqlite)")
    hc.set_defaults(func=_cmd_health)
    dn = sub.add_parser("deploy-nginx", help="nginx's configuration for several app processes (see deploy/)")
    dn.add_argument("--processes", type=int_in(1, 64), default=3, help="app processes (default 3)")
    dn.add_argument("--first-port", type=int_in(1024, 65535), default=8601,
                    help="port of the first app process; the others follow (default 8601)")
    dn.add_argument("--listen", default="80", help="nginx's port, or address:port (default 80)")
    dn.add_argument("--servers", metavar="HOST:PORT,...",
                    help="the app processes' addresses (containers, other machines) instead of --processes/--first-port")
    dn.add_argument("--server-name", default="_", help="the site's server_name (default _: any)")
    dn.add_argument("--run-dir", metavar="DIR",
                    help="write a whole configuration that runs without root, DIR/nginx.conf (deploy/run.sh)")
    dn.add_argument("--workers", type=lambda v: v if v == "auto" else int_in(1, 64)(v), default="auto",
                    help="nginx worker processes with --run-dir: 1 to 64, or auto (one per CPU core; the default)")
    dn.set_defaults(func=_cmd_deploy_nginx)
    srv = sub.add_parser(
        "serve", allow_abbrev=False, help="start the app's server, its models warming from the start",
        description="Start the app's server: the default preset's models, and those of every preset whose models "
                    "are on this machine, warm in the background from the start, before the first visitor. It answers "
                    "this machine only (127.0.0.1) unless given --server.address; every other option goes to "
                    "`streamlit run app.py` (e.g. --server.port 8501). Data: $DETOX_DATA_DIR, else the checkout's "
                    "data/ or, installed, ~/.local/share/detox-dashboard (`detox fetch-data` fills it).")
    srv.set_defaults(func=_cmd_serve, passes_options=True)
