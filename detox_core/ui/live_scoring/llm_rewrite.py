""""Suggest with the LLM" on the Live scoring page: who is offered it, and the request.

The endpoint is the LLM judge's, and so is the rule of who may spend it
(:mod:`detox_core.llm.access`): organizers always, visitors only when the organizers
opted them in (each request then counts toward the visitors' limits). A visitor who may
not use it is not offered it; an organizer on a server without an endpoint is told, in
one sentence, where to set one.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass

from detox_core.errors import DetoxInputError, ScorerUnavailableError
from detox_core.llm import access
from detox_core.llm.access import allowance
from detox_core.rewriters.llm import MAX_REWRITES, LLMRewriter, RewriteResult, live_policy, worst_wait
from detox_core.llm.settings import resolve
from detox_core.ui.app import auth
from detox_core.ui.app.llm_endpoint import apply_secrets_once

__all__ = ["MAX_REWRITES", "Offer", "offer", "suggest"]


@dataclass(frozen=True)
class Offer:
    """How the page shows the control."""

    shown: bool  # the control is on the page at all
    enabled: bool
    help: str  # the button's help
    note: str | None = None  # one sentence under the buttons (an organizer, no endpoint)


def offer() -> Offer:
    """Whether this session is offered LLM rewrites, and what the control says."""
    apply_secrets_once()
    organizer = auth.is_organizer()
    if not organizer and not allowance().policy.visitors:
        return Offer(False, False, "")
    try:
        settings = resolve()
    except DetoxInputError:
        settings = None
    if settings is None or not settings.endpoint.configured:
        if not organizer:
            return Offer(False, False, "")
        why = "No LLM endpoint is set on this server: set one in the sidebar under **LLM judge** to get rewrites from an LLM."
        return Offer(True, False, why, why)
    wait = worst_wait(live_policy(settings.policy))
    help_text = (f"Ask the LLM set under LLM judge for rewrites of the toxic sentence (one request; the page waits at "
                 f"most about {wait:.0f} s). They are added to the candidates, labelled, and scored with them.")
    if not organizer:
        help_text += " Each request counts toward the limits the organizers set for visitors."
    return Offer(True, True, help_text)


def suggest(text: str, lang: str, n: int, editions: Sequence[str] = ()) -> tuple[RewriteResult | None, str | None]:
    """The LLM's rewrites of ``text``, or None and the sentence to show instead (a
    visitor's message never names the endpoint)."""
    # A button's callback runs before the page's body (where require_page marks the run as
    # a visitor's): the visitor is named here, so the request is charged to the allowance.
    scope = nullcontext() if auth.is_organizer() else access.visitor_run(auth.client_id())
    try:
        with scope:
            result = LLMRewriter(resolve()).rewrite(text, lang, n, editions=editions)
    except (DetoxInputError, ScorerUnavailableError) as err:  # a bad setting, the endpoint unset meanwhile
        return None, str(err)
    if result.error:
        return result, (result.detail if auth.is_organizer() else result.error)
    return result, None
