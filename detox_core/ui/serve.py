"""``python -m detox_core serve [streamlit options]``: the app's server, its models warming
from the start.

Streamlit runs ``app.py`` only when a browser session connects, so a warm-up started by
the app would start with the first visitor, whose first screens would then wait for it
(:mod:`detox_core.warmup` says why). This launcher starts the warm-up's thread and then
Streamlit's own command line (``streamlit run app.py ...``) in the same process: the
sessions' scripts find the models it loads. ``streamlit run app.py`` keeps working; the
app then starts the warm-up on its first session.
"""

from __future__ import annotations

from collections.abc import Sequence

from detox_core import warmup
from detox_core.config import PROJECT_ROOT

APP = PROJECT_ROOT / "app.py"


def serve(streamlit_args: Sequence[str] = ()) -> int:
    """Start the warm-up, then serve the app with ``streamlit run app.py *streamlit_args``
    until the server stops (Ctrl+C, SIGTERM). Returns Streamlit's exit status."""
    from streamlit.web import cli as streamlit_cli

    from detox_core.ui.warming import app_steps

    warmup.start(app_steps=app_steps(wait_for_server=True))
    try:
        # Streamlit's click group: it parses the options as `streamlit run` does, installs its
        # own signal handlers and blocks until the server stops.
        streamlit_cli.main(["run", str(APP), *streamlit_args], prog_name="streamlit", standalone_mode=True)
    except SystemExit as done:  # click's standalone mode ends with sys.exit
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
