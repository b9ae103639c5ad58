"""Who may see which page: the roles of a shared task's deployment.

- **Organizer**: every page and every setting (stored submissions, annotation projects,
  model folders). Signs in with the organizer password in the sidebar.
- **Annotator**: the Annotate page, with their own password chosen on joining (see
  :meth:`detox_core.annotation.store.AnnotationStore.join`).
- **Visitor** (a demo's public): the public pages, by default Corpus, Live scoring,
  Leaderboard and Annotate (so annotators reach their page).

Configured in ``.streamlit/secrets.toml``::

    [access]
    organizer_password = "a long password"      # or [annotation] organizer_password
    public_pages = ["corpus", "live_scoring", "leaderboard", "annotate"]
    model_roots = ["/srv/models"]                # folders organizers may load models from

(an organizer password has at least 12 characters; a file or value that cannot be read stops
the app with a message naming it: :mod:`detox_core.ui.app.settings_check`),
or with the environment variables ``DETOX_ORGANIZER_PASSWORD``, ``DETOX_PUBLIC_PAGES``
(comma-separated page ids) and ``DETOX_MODEL_ROOTS`` (``os.pathsep``-separated). With no
organizer password set, the app is **open**: every page and setting is available to
whoever reaches it, as on one's own machine, and the sidebar says so.
"""

from __future__ import annotations

import hmac
import json
import math
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import streamlit as st

from detox_core import config
from detox_core.db import default_url, make_engine
from detox_core.deployment.signin_tokens import COOKIE, SignInTokens
from detox_core.deployment.addresses import UNKNOWN, client_address, client_key
from detox_core.llm import access as judge_access
from detox_core.ui.app.navigation import ensure_app_navigation
from detox_core.ui.app.page_ids import DEFAULT_PUBLIC, ORGANIZER_ONLY, PAGES
from detox_core.ui.app.render import md
from detox_core.ui.app.settings_check import MIN_ORGANIZER_CHARS, SettingsError, password_problem, settings_problem
from detox_core.deployment.join_guard import JoinGuard
from detox_core.deployment.throttle import FAILED, OK, SharedLoginThrottle

SECRET_ENV = config.ORGANIZER_PASSWORD_ENV
PUBLIC_ENV = config.PUBLIC_PAGES_ENV
ROOTS_ENV = config.MODEL_ROOTS_ENV

_SIGNED_IN = "organizer_ok"


_RUN = threading.local()


@contextmanager
def settings_read_once() -> Iterator[None]:
    """Within it (a page run: ``app.py``), each access setting of the secrets is read once.
    A run reads them a few dozen times (every page's visibility asks who the session is), and
    each read asked Streamlit's configuration, under its process-wide lock, and the file system:
    under a flood of page runs they were a tenth of the process's work. A setting that cannot
    be read is not kept: it raises at each read."""
    _RUN.read = {}
    try:
        yield
    finally:
        _RUN.read = None


def _secret(section: str, key: str) -> Any:
    """A value of the secrets (None when unset). A secrets file that cannot be read raises
    :class:`SettingsError` naming it: never read as "unset", which would open the app."""
    read = getattr(_RUN, "read", None)
    if read is None:
        return _read_secret(section, key)
    if (section, key) not in read:
        read[(section, key)] = _read_secret(section, key)
    return read[(section, key)]


def _read_secret(section: str, key: str) -> Any:
    try:
        table = st.secrets.get(section, {})
        if table is None:
            return None
        if not hasattr(table, "get"):
            raise SettingsError(f"the secrets' {section} must be a table ([{section}]), not {type(table).__name__}")
        return table.get(key)
    except FileNotFoundError as err:
        # No secrets file at all, or (Streamlit's same exception) one it cannot parse: only
        # the first is "unset".
        if problem := settings_problem():
            raise SettingsError(problem) from None
        if getattr(err, "error_id", None) not in (None, "no-secrets-found"):
            raise SettingsError(f"the secrets cannot be read ({err})") from None
        return None
    except SettingsError:
        raise
    except Exception as err:  # noqa: BLE001 - a malformed secrets.toml must not open anything
        raise SettingsError(settings_problem() or f"the secrets cannot be read ({type(err).__name__}: {err})") from None


def organizer_secret() -> str | None:
    """The organizer password: ``[access]`` or ``[annotation]`` ``organizer_password`` in
    ``.streamlit/secrets.toml``, else ``$DETOX_ORGANIZER_PASSWORD``; None when unset. One that
    is not text or too short (:data:`MIN_ORGANIZER_CHARS`) raises :class:`SettingsError`."""
    for section in ("access", "annotation"):
        value = _secret(section, "organizer_password")
        if value is not None:
            where = f"[{section}] organizer_password of the secrets"
            break
    else:
        value, where = config.organizer_password(), f"${SECRET_ENV}"
    if value is None:
        return None
    if problem := password_problem(value, where):
        raise SettingsError(problem)
    return str(value)


def is_open() -> bool:
    """No organizer password is set: everything is open to whoever reaches the app."""
    return organizer_secret() is None


# The sign-in cookie (detox_core.deployment.signin_tokens.COOKIE): a signed, expiring token, no password
# in it, set HttpOnly by the server's cookie route (detox_core.ui.app.asgi).
_TOKEN = "_organizer_token"
_COOKIE_ACTION = "_organizer_cookie_action"


@st.cache_resource(show_spinner=False)
def signin_tokens() -> SignInTokens:
    """This server's sign-in tokens (the secret shared by its processes through the data folder)."""
    return SignInTokens()


def _restore_from_cookie(secret: str) -> None:
    """Sign this session in from a valid cookie (a reload or a new tab), and sign it out
    when its token was revoked (signed out elsewhere) or has expired."""
    tokens = signin_tokens()
    token = st.session_state.get(_TOKEN)
    if st.session_state.get(_SIGNED_IN):
        if token and tokens.verify(token, secret) != "organizer":
            st.session_state.pop(_SIGNED_IN, None)
            st.session_state.pop(_TOKEN, None)
        return
    try:
        cookie = st.context.cookies.get(COOKIE)
    except Exception:  # noqa: BLE001 - no request context (a script run outside a browser session)
        cookie = None
    if cookie and tokens.verify(cookie, secret) == "organizer":
        st.session_state[_SIGNED_IN] = True
        st.session_state[_TOKEN] = cookie


def is_organizer() -> bool:
    """This session may do everything (open app, or signed in as organizer, in this tab
    or through a valid sign-in cookie)."""
    secret = organizer_secret()
    if secret is None:
        return True
    _restore_from_cookie(secret)
    return bool(st.session_state.get(_SIGNED_IN))


def public_pages() -> tuple[str, ...]:
    """Page ids a visitor sees (``[access] public_pages`` or ``$DETOX_PUBLIC_PAGES``)."""
    value = _secret("access", "public_pages")
    if value is None:
        value = config.public_pages()
    if value is None:
        return DEFAULT_PUBLIC
    return tuple(p for p in value if p in PAGES and p not in ORGANIZER_ONLY)


def allowed(page_id: str) -> bool:
    """Whether this session may open page ``page_id``."""
    return is_organizer() or page_id in public_pages()


def require_page(page_id: str) -> None:
    """Stop the page unless this session may see it (a page reached by its URL too).

    Also marks this run as an organizer's or a visitor's for the paid LLM judge
    (:mod:`detox_core.llm.access`): a visitor's runs are limited, or refused."""
    ensure_app_navigation()  # a process's first page through app.py, which says what broke
    try:
        judge_access.mark(None if is_organizer() else client_id())
        if allowed(page_id):
            return
    except SettingsError as err:  # the secrets broke while the server runs: nothing is served
        st.error(f"**The app's access settings cannot be read, so it serves nothing.** {md(err, None)}. Fix it and "
                 "reload this page (docs: Deployment).", icon=":material/lock:")
        st.stop()
    st.error("**This page is for the organizers of this task.** Sign in as organizer in the sidebar to open it.",
             icon=":material/lock:")
    st.stop()


#: The throttle's account name of the organizer password.
ORGANIZER_ACCOUNT = "organizer"


@st.cache_resource(show_spinner=False)
def _login_throttle(url: str) -> SharedLoginThrottle:
    return SharedLoginThrottle(make_engine(url))


@st.cache_resource(show_spinner=False)
def _address_throttle(url: str) -> SharedLoginThrottle:
    return SharedLoginThrottle(make_engine(url), **JoinGuard.address_rules())


@st.cache_resource(show_spinner=False)
def _new_name_throttle(url: str) -> SharedLoginThrottle:
    return SharedLoginThrottle(make_engine(url), **JoinGuard.new_name_rules())


def join_guard() -> JoinGuard:
    """Annotators' joins, shared by every app process like :func:`login_throttle`:
    :class:`detox_core.deployment.join_guard.JoinGuard`."""
    url = default_url()
    return JoinGuard(_login_throttle(url), _address_throttle(url), _new_name_throttle(url))


def login_throttle() -> SharedLoginThrottle:
    """Sign-ins of every app process sharing the app's database (organizers and
    annotators): :class:`detox_core.deployment.throttle.SharedLoginThrottle`."""
    return _login_throttle(default_url())


def client_id() -> str:
    """Who is signing in, for the throttle and the address limit: the connection's
    address, or behind a trusted proxy the client's (:func:`detox_core.deployment.addresses.client_address`);
    ``"unknown client"`` outside a browser session (a test, a script)."""
    try:
        # A private module of Streamlit, imported here: a Streamlit that moved it falls back below.
        from streamlit.runtime.context import _get_client_context

        context = _get_client_context()
        if context is None:
            return UNKNOWN
        peer = context.remote_ip
    except Exception:  # noqa: BLE001 - Streamlit moved it: the loopback-normalised address
        peer = st.context.ip_address
    if peer is not None and not isinstance(peer, str):
        return UNKNOWN  # a test harness's stand-in of a connection
    try:
        forwarded = st.context.headers.get_all("X-Forwarded-For")
    except Exception:  # noqa: BLE001 - no request headers
        forwarded = []
    return client_key(client_address(peer, forwarded))  # an IPv6 client by its /64


def retry_text(wait: float, what: str = "wrong passwords", account: str = "this sign-in") -> str:
    """Why a sign-in must wait ``wait`` seconds, in words: a short wait is the pause after a
    wrong password (1, 2, 4 ... s), a try being checked, or an account guessed at from other
    connections, not "too many"; a long one is the lock after five wrong ones within 15 minutes."""
    if wait > 60:
        return f"Too many {what} from your connection: try again in {math.ceil(wait / 60)} min."
    return (f"Wait {math.ceil(wait)} s before the next try: tries of {account} are spaced out after a wrong "
            "password, while another try is being checked, or while it is being guessed at from other connections "
            "(each wrong password from your connection doubles the wait; five within 15 minutes stop tries for "
            "15 minutes).")


def organizer_sign_in(form_key: str = "organizer_login") -> None:
    """The organizer password form; signs this session in when the password is right.
    Wrong tries are throttled (:class:`detox_core.deployment.throttle.LoginThrottle`)."""
    secret = organizer_secret()
    if secret is None or st.session_state.get(_SIGNED_IN):
        return
    with st.form(form_key):
        key = "organizer_password" if form_key == "organizer_login" else f"{form_key}_password"
        typed = st.text_input("Organizer password", type="password", key=key)
        sent = st.form_submit_button("Sign in", type="primary")
    if not sent:
        return
    throttle, client = login_throttle(), client_id()
    wait, attempt = throttle.reserve(client, ORGANIZER_ACCOUNT)  # counted before the check: see JoinGuard
    if attempt is None:
        st.error(retry_text(wait), icon=":material/timer:")
        return
    if hmac.compare_digest(typed.encode(), secret.encode()):
        throttle.settle(attempt, OK)
        st.session_state[_SIGNED_IN] = True
        token = signin_tokens().issue("organizer", secret)
        st.session_state[_TOKEN] = token
        st.session_state[_COOKIE_ACTION] = ("set", token)  # written by the sidebar on the next run
        st.rerun()
    throttle.settle(attempt, FAILED)
    st.error("Wrong password.", icon=":material/lock:")


def organizer_gate() -> None:
    """Stop the page unless this session is an organizer; shows the sign-in form."""
    if is_organizer():
        return
    organizer_sign_in()
    st.stop()


def sign_out() -> None:
    """Sign this session out, revoke its token (a copy of the cookie stops working in
    every process) and clear the cookie."""
    token = st.session_state.pop(_TOKEN, None)
    secret = organizer_secret()
    if token and secret:
        signin_tokens().revoke(token, secret)
    st.session_state.pop(_SIGNED_IN, None)
    st.session_state[_COOKIE_ACTION] = ("clear", "")


def cookie_route() -> str | None:
    """The path of the server's cookie route when this process serves it (started by the
    launcher, :mod:`detox_core.ui.app.asgi`), else None: a plain ``streamlit run app.py``,
    where a sign-in holds for its tab only."""
    module = sys.modules.get("detox_core.ui.app.asgi")
    if module is None or not module.serving():
        return None
    return module.route_path()


def _write_cookie() -> None:
    """Set or clear the sign-in cookie (once, after a sign-in or sign-out).

    The page posts a one-time ticket to the server's cookie route, whose answer sets the
    cookie ``HttpOnly`` (no script of the page can read the token), ``SameSite=Strict``,
    ``Secure`` over https (:mod:`detox_core.ui.app.asgi`). The page only ever holds the ticket,
    which the server redeems once. Without the route, nothing is written."""
    action = st.session_state.pop(_COOKIE_ACTION, None)
    path = cookie_route()
    if not action or path is None:
        return
    kind, token = action
    ticket = signin_tokens().ticket(kind, token, client_id())
    # JSON strings; "<" escaped so that no value can close the script element.
    target, body = (json.dumps(v).replace("<", "\\u003c") for v in (path, ticket))
    st.html(f"""<script>
fetch({target}, {{method: "POST", body: {body}, credentials: "same-origin", cache: "no-store",
                 headers: {{"Content-Type": "text/plain"}}}});
</script>""", unsafe_allow_javascript=True, width=1)


def signed_in_caption() -> str:
    """What the sidebar says of a sign-in: how long it lasts, and where."""
    if cookie_route() is None:
        return (":material/verified_user: Signed in as organizer **in this tab**: a reload or a new tab asks "
                "again (started with `streamlit run`; `make run` or `python -m detox_core serve` keep a sign-in "
                "for 12 hours).")
    return (":material/verified_user: Signed in as organizer: in this browser for 12 hours, also after a reload "
            "or in a new tab, until you sign out.")


def render_access_sidebar(sign_in_form: bool = True) -> None:
    """The sidebar's access box: open-app note, or organizer sign-in / sign-out.

    Args:
        sign_in_form: False on a page that shows the sign-in form itself.
    """
    with st.sidebar:
        _write_cookie()
        if is_open():
            st.caption(":material/lock_open: **Open app**: no organizer password is set, so everyone who can "
                       "reach this server can use every page and setting. Set one before sharing the app "
                       "(README: Deploying for a shared task).")
        elif st.session_state.get(_SIGNED_IN):
            st.caption(signed_in_caption())
            st.button("Sign out", key="organizer_sign_out", on_click=sign_out, icon=":material/logout:")
        elif sign_in_form:
            with st.expander("Organizer sign-in", icon=":material/login:"):
                organizer_sign_in("organizer_sidebar_login")


def model_roots() -> list[Path]:
    """Folders under which organizers may point the models (``[access] model_roots`` or
    ``$DETOX_MODEL_ROOTS``; by default the data folder's ``models/`` and
    ``$DETOX_MODEL_DIR``)."""
    value = _secret("access", "model_roots")
    if value is None:
        value = config.model_roots()
    if value is None:
        extra = config.model_dir()
        value = [str(config.data_dir() / "models")] + ([str(extra)] if extra else [])
    return [Path(v).expanduser().resolve() for v in value if str(v).strip()]


def model_folder_allowed(folder: str) -> bool:
    """Whether ``folder`` may be used as a model folder: anywhere in an open app, else
    only inside :func:`model_roots` (checked on the resolved path, links followed)."""
    if is_open():
        return True
    path = Path(folder).expanduser().resolve()
    return any(path == root or root in path.parents for root in model_roots())
