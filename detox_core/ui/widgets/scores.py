"""Widgets shared by the scoring pages: preset picker, score cards, error display."""

from __future__ import annotations

import html
from collections.abc import Sequence

import streamlit as st

from detox_core import extras, vocab
from detox_core.errors import EmbeddedMissingError, ModelUnavailableError, ScorerUnavailableError
from detox_core.llm import access as judge_access
from detox_core.metrics import registry
from detox_core.submissions.explain import RELIABILITY_HELP, axis_agreement, explain_j, flags
from detox_core.text import word_diff
from detox_core.ui.app import auth, render
from detox_core.ui.app.auth import is_organizer
from detox_core.ui.app.models import shared_pool
from detox_core.vocab import language_name

#: (axis key, label, a few words) of the score card, in order.
AXES = tuple((a.key, a.label, a.short) for a in vocab.AXES)


def preset_label(preset: str, calibrated: bool = True) -> str:
    """How the app names a preset (its registered label); a preset with a calibration
    that runs without it says so."""
    return registry.preset_label(preset, calibrated)


def axis_help(key: str, preset: str | None = None) -> str:
    """What the number of axis ``key`` measures under ``preset``, and its range."""
    cls = registry.PRESETS.get(preset) if preset else None
    return cls.help_for(key) if cls else vocab.axis_help(key)


def has_calibration(preset: str) -> bool:
    """Whether the preset has a calibration that can be switched off."""
    return registry.has_calibration(preset)


def preset_picker(key: str = "preset", container=None, languages: Sequence[str] = ()) -> tuple[str | None, bool]:
    """Preset (``embedded`` by default) and whether calibration is on.

    Drawn into ``container`` (by default a row of its own) as a row that wraps on a
    narrow screen. The Calibrated switch is on only where the preset has a
    calibration (RUSSE-2022), and off and greyed out elsewhere.

    With ``languages`` (ISO codes), only presets that cover at least one of them are
    offered, and those that do not cover them all say which they cover; the name is None
    (and a warning says so) when no preset covers any of them.
    """
    row = container or st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
    presets = registry.registered()
    if not is_organizer() and not judge_access.allowance().policy.visitors:
        # Paid judges run for the organizers only (a visitor's link naming one falls back
        # to the default preset).
        closed = [cls.display() for cls in presets.values() if cls.paid]
        presets = {name: cls for name, cls in presets.items() if not cls.paid}
        if closed:
            st.caption(f"{', '.join(closed)}: for the organizers of this server (each run is paid for).")
    if languages:
        left_out = {name: cls for name, cls in presets.items() if not any(cls.covers(lang) for lang in languages)}
        presets = {name: cls for name, cls in presets.items() if name not in left_out}
        if not presets:
            wanted = ", ".join(language_name(lang) for lang in languages)
            st.warning(f"No metric preset covers {wanted}: "
                       + "; ".join(f"{cls.display()} covers {cls.coverage()}" for cls in left_out.values()) + ".",
                       icon=":material/translate:")
            return None, True
        partial = [cls for cls in presets.values() if not all(cls.covers(lang) for lang in languages)]
        notes = [f"{cls.display()} covers {cls.coverage()}" for cls in partial]
        notes += [f"{cls.display()} (covers {cls.coverage()}) is not offered" for cls in left_out.values()]
        if notes:
            st.caption("Languages: " + "; ".join(notes) + ".")
    labels = {cls.display(): name for name, cls in presets.items()}
    fallback = registry.DEFAULT_PRESET if registry.DEFAULT_PRESET in presets else next(iter(presets))
    default = presets[fallback].display()
    offline = [cls.display() for cls in presets.values() if not cls.needs_download]
    label = row.segmented_control(
        "Metric preset", list(labels), default=default, required=True,
        key=key, bind="query-params", wrap=True,
        help=(f"{', '.join(offline)}: no download, runs on the CPU. " if offline else "")
        + "The other presets need their models (model hub, or local folders under **Metric models** in the sidebar).",
    )
    name = labels.get(label or default, fallback)
    if why := presets[name].unavailable():  # e.g. an LLM judge without an endpoint: say what to set
        st.warning(render.md(why, None), icon=":material/link_off:")
    elif presets[name].paid and not is_organizer():
        st.caption(visitor_allowance_text())
    if has_calibration(name):
        calibrated = row.toggle(
            "Calibrated", value=True, key=f"{key}_cal", bind="query-params",
            help=render.md(note(), None) if (note := getattr(presets[name], "calibration_note", None))
            else f"The official {presets[name].display()} calibration; off = raw scores.",
        )
        return name, calibrated
    calibrated_ones = [cls.display() for cls in registry.registered().values() if cls.has_calibration()]
    note = getattr(presets[name], "calibration_note", None)  # a preset whose calibrators are fitted says why not
    row.toggle("Calibrated", value=False, key=f"{key}_cal_none", disabled=True,
               help=render.md(note(), None) if note else "This preset has no calibration: its scores are used as they are. "
               + (f"Calibrated: {', '.join(calibrated_ones)}." if calibrated_ones else ""))
    return name, True


def visitor_allowance_text() -> str:
    """A visitor's share of the paid judge, and what is left of it now."""
    policy = judge_access.allowance().policy
    used = judge_access.allowance().used(auth.client_id())
    usd = (f" and ${policy.daily_usd:.2f} (${max(policy.daily_usd - used['usd_today'], 0):.2f} left)"
           if policy.daily_usd is not None else "")
    return (f"**Paid judge, shared by every visitor**: {policy.requests_per_hour:,} requests an hour from your address "
            f"({max(policy.requests_per_hour - used['hour'], 0):,} left), {policy.daily_requests:,} a day for all "
            f"visitors ({max(policy.daily_requests - used['requests_today'], 0):,} left){usd}. A run is charged up "
            "to two requests per question (an unreadable answer is asked again) and gets back what it did not send; "
            "answers already stored are free.")


def _models_text(missing: Sequence[tuple[str, str]]) -> str:
    """"toxicity classifier (textdetox/xlmr-large-toxicity-classifier), meaning model (...)"."""
    return ", ".join(f"{what} ({render.md(model_id, None)})" for what, model_id in missing)


def _where_to_set() -> str:
    if is_organizer():
        return ("Download them on a machine that can reach the model hub and set their folders under "
                "**Metric models** in the sidebar.")
    return "The organizers of this server can add them (under **Metric models** in the sidebar)."


def offer_what_scores(languages: Sequence[str], instead_of: str | None = None) -> None:
    """Say which preset would score ``languages`` here: one that runs now (for the languages
    it covers), and for the rest the preset needing the fewest models, and which models those
    are. Checked in seconds (folders listed, the hub asked once; no model loads)."""
    def names(langs: Sequence[str]) -> str:
        return ", ".join(language_name(lang) for lang in langs) or "these texts"

    covering = [(name, cls) for name, cls in registry.registered().items()
                if not languages or any(cls.covers(lang) for lang in languages)]
    ready = [cls for name, cls in covering if name != instead_of and not cls.unavailable()
             and not registry.missing_models(name, shared_pool())]
    text, left = [], list(languages)
    if ready:
        cls = max(ready, key=lambda c: sum(c.covers(lang) for lang in languages))  # the one covering the most
        scored = [lang for lang in languages if cls.covers(lang)]
        left = [lang for lang in languages if not cls.covers(lang)]
        text.append(f"To score {names(scored)} here, choose **{cls.display()}** as the metric preset"
                    + (" (no download)." if not cls.needs_download else "."))
        if not left:
            st.info(" ".join(text), icon=":material/swap_horiz:")
            return
    text.append(f"No metric preset can score {names(left)} on this server yet.")
    downloads = sorted(((registry.missing_models(name, shared_pool()), cls) for name, cls in covering
                        if cls.default_models() and not cls.unavailable()
                        and (not left or all(cls.covers(lang) for lang in left))), key=lambda mc: len(mc[0]))
    if downloads:
        missing, cls = downloads[0]
        if cls.name == instead_of:  # the one picked: its models are listed just above
            text.append(f"**{cls.display()}** needs the fewest models for it: those named above. " + _where_to_set())
        else:
            text.append(f"**{cls.display()}** would, with its models on this server: {_models_text(missing)}. "
                        + _where_to_set())
    waiting = [cls for _, cls in covering if cls.unavailable() and (not left or all(cls.covers(lang) for lang in left))]
    text += [f"**{cls.display()}** would, with the [{cls.extra}] extra installed on this server."
             if cls.extra and extras.missing(cls.extra) else f"**{cls.display()}** would, once the organizers connect it."
             for cls in waiting]
    st.info(" ".join(text), icon=":material/translate:")


def preset_ready(preset: str, languages: Sequence[str] = ()) -> bool:
    """Whether ``preset``'s models can be had here, found in seconds before any scoring
    (folders listed, the hub asked once, no weights read). When they cannot, the page says
    so in the visitor's terms, and what would score ``languages`` instead."""
    cls = registry.preset_class(preset)
    if cls.extra and extras.missing(cls.extra):  # the picker has said which extra: no model to look for
        offer_what_scores(languages, instead_of=preset)
        return False
    missing = registry.missing_models(preset, shared_pool())
    if not missing:
        return True
    st.warning(f"**{cls.display()}** cannot score on this server: its models are not here, and this server cannot "
               f"download them ({_models_text(missing)}).", icon=":material/cloud_off:")
    offer_what_scores(languages, instead_of=preset)
    return False


def show_scoring_error(err: Exception, languages: Sequence[str] = ()) -> None:
    """A model that cannot load: what happened and what to do, never a zero score.

    ``languages``: the languages being scored; the way out offered covers them."""
    if isinstance(err, ModelUnavailableError):
        # The visitor's terms: which model and why; the command-line advice of the
        # exception's message is for the command line.
        what = registry.ROLE_WORDS.get(err.role or "", "model")
        st.error(f"Not scored: the {what} ({render.md(err.model_id, None)}) could not be loaded: "
                 f"{render.md(err.reason, 300)}.", icon=":material/error:")
        offer_what_scores(languages)
    elif isinstance(err, EmbeddedMissingError):
        st.error("The offline preset's models are not trained on this server yet.", icon=":material/error:")
        st.info("Train them under **Metric models** in the sidebar." if is_organizer() else
                "The organizers of this server can train them (under **Metric models** in the sidebar).")
    elif isinstance(err, ScorerUnavailableError):  # an LLM judge without access, a refused key
        st.error(render.md(err, None), icon=":material/error:")
    else:
        raise err


def bar_color(value: float | None) -> str:
    """Green from 0.7, orange from 0.4, red below (and for n/a)."""
    if value is None or value != value:
        return "#c0392b"
    return "#2e7d5b" if value >= 0.7 else "#e67e22" if value >= 0.4 else "#c0392b"


_BARS_STYLE = (
    "<style>.dx-bars{display:grid;grid-template-columns:auto 1fr 2.6rem;gap:.3rem .5rem;align-items:center;"
    "margin:.4rem 0;font-size:.9rem}.dx-bars .track{height:.9rem;border-radius:3px;background:rgba(128,128,128,.15)}"
    ".dx-bars .fill{display:block;height:100%;border-radius:3px}.dx-bars .v{text-align:end;"
    "font-variant-numeric:tabular-nums}</style>"
)


def score_bars_html(row: dict) -> str:
    """The card's scores as horizontal bars in plain HTML.

    Not a Plotly figure: a card is drawn on a visitor's first screen, and the chart
    library's 4.6 MB script took seconds to load and parse there before the card showed
    (Live scoring's first screen and every new visitor's). Labels and numbers only: no
    user text goes into it."""
    cells = []
    for key, label, _ in AXES:
        value = row.get(key)
        known = value is not None and value == value
        width = min(max(float(value), 0.0), 1.0) * 100 if known else 0.0
        cells.append(f'<span>{html.escape(label)}</span><span class="track"><span class="fill" style="width:{width:.0f}%;'
                     f'background:{bar_color(value)}"></span></span><span class="v">'
                     f'{f"{value:.2f}" if known else "n/a"}</span>')
    return _BARS_STYLE + '<div class="dx-bars" role="img" aria-label="' + html.escape(", ".join(
        f"{label} {'n/a' if row.get(key) is None or row.get(key) != row.get(key) else f'{row.get(key):.2f}'}"
        for key, label, _ in AXES)) + '">' + "".join(cells) + "</div>"


def score_card(source: str, output: str, row: dict, lexicon: frozenset[str], sta_input: float | None = None,
               title: str | None = None, preset: str | None = None, lang: str | None = None) -> None:
    """One rewrite: metrics, bars, what limits J, flags and the word diff to the input."""
    with st.container(border=True):
        if title:
            st.markdown(f"**{render.md(title, None)}**")
        cols = st.columns(5)
        for col, (key, label, _) in zip(cols, AXES):
            value = row.get(key)
            col.metric(label, "n/a" if value is None or value != value else f"{value:.2f}",
                       help=axis_help(key, preset))
        # The other reference metrics (after chrF), in one line.
        more = [(label, row.get(key)) for key, label, _ in AXES[5:]]
        st.caption("Against the references: " + " · ".join(
            f"{label} {'n/a' if v is None or v != v else f'{v:.2f}'}" for label, v in more))
        left, right = st.columns([1.1, 1])
        with left:
            st.markdown(render.STYLE, unsafe_allow_html=True)
            diff = word_diff(source, output, lexicon)
            src_html, out_html = render.diff_html(diff)
            st.caption("Input")
            st.markdown(src_html, unsafe_allow_html=True)
            st.caption("Rewrite")
            st.markdown(out_html, unsafe_allow_html=True)
        with right:
            st.markdown(score_bars_html(row), unsafe_allow_html=True)
        # Numbers and fixed words only (no user text): safe as markdown.
        st.markdown(explain_j(row["sta"], row["sim"], row["fl"], axis_agreement(preset, lang)), help=RELIABILITY_HELP)
        # The preset's known weak cases that apply (fixed words and numbers only: safe as markdown).
        known = preset in registry.PRESETS
        for caveat in registry.preset_class(preset).caveats(source, output, lang) if known else []:
            st.caption(f":material/info: {caveat}")
        found = flags(source, output, lexicon, row.get("sta_raw"), sta_input, lang=lang)
        if labels := found.labels():
            st.markdown(" ".join(f":orange-badge[{label}]" for label in labels))
        # What made it "more toxic": the insults it adds (the rewrite's own words: shown as text).
        if found.added:
            st.caption("Adds toxic words the input does not have: " + render.md(", ".join(found.added), 200))
