"""Widget values remembered from an earlier run or an address, kept valid for this run.

Streamlit keeps a keyed widget's value across reruns and restores it from the address
(``bind="query-params"``). When the data under a widget changes (other splits or
languages in the sidebar), the remembered value can fall outside the widget's new
range or options, and Streamlit then raises instead of drawing the page. Pages call
these helpers just before drawing such a widget: a value that no longer fits is
clamped into the new range, or dropped so the widget starts from its default.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def clamp_range(key: str, lo: int | float, hi: int | float) -> None:
    """Keep a range slider's remembered value ``key`` inside ``[lo, hi]``.

    A value partly outside is clamped to the overlap (a filter of 1-28 words on data
    that now spans 4-25 becomes 4-25); one with nothing in common with the new range,
    or that is not a pair of numbers, is dropped, so the slider shows the whole range.
    """
    if key not in st.session_state:
        return
    value = st.session_state[key]
    pair = [_number(v) for v in value] if isinstance(value, (list, tuple)) else []
    if len(pair) == 2 and None not in pair and lo <= pair[0] <= pair[1] <= hi:
        return
    if len(pair) == 2 and None not in pair:
        a, b = sorted(pair)
        a, b = max(lo, min(a, hi)), max(lo, min(b, hi))
        if a < b and (a, b) != (lo, hi):
            cast = type(lo)
            st.session_state[key] = (cast(a), cast(b))
            return
    del st.session_state[key]


def clamp_value(key: str, lo: int | float, hi: int | float) -> None:
    """Keep a single-value slider or number input's remembered value inside ``[lo, hi]``."""
    if key not in st.session_state:
        return
    number = _number(st.session_state[key])
    if number is None:
        del st.session_state[key]
    elif not lo <= number <= hi:
        st.session_state[key] = type(lo)(max(lo, min(number, hi)))


def keep_options(key: str, options: Sequence[Any]) -> list | None:
    """Keep only the remembered choices of ``key`` that are still among ``options``.

    For a multiselect (a list is kept as the choices still offered; a list that held every
    choice offered on the previous run holds every choice offered now: all nine languages
    of TextDetox 2024 become all fifteen of 2025) or a single choice (dropped when it is no
    longer offered, so the widget shows its default).

    Returns the default for a widget that starts with every option picked: the options,
    or None once the widget has a remembered value (Streamlit warns when a widget gets both).
    """
    offered = list(options)
    memo = f"_offered:{key}"
    before = st.session_state.get(memo)
    st.session_state[memo] = offered
    if key not in st.session_state:
        return offered
    value = st.session_state[key]
    if isinstance(value, (list, tuple)):
        if before is not None and before != offered and value and set(value) == set(before):
            st.session_state[key] = offered  # everything was picked: everything still is
            return None
        kept = [v for v in value if v in offered]
        if len(kept) != len(value):
            st.session_state[key] = kept
    elif value is not None and value not in offered:
        del st.session_state[key]
        return offered
    return None


def accept_plain_values(key: str, options: Sequence[Any], format_func: Callable[[Any], str],
                        aliases: Callable[[Any], Sequence[str]] = lambda option: (), multiple: bool = False) -> None:
    """Let a link name the choice of a widget bound to the address by its plain value.

    A widget with ``format_func`` is written into the address by its label (``?live_lang=Chinese+(zh)``);
    Streamlit ignores any other value, so a hand-made link ``?live_lang=zh`` would open on
    the default choice without a word. Called just before drawing the widget: an address
    value that is an option's value, label or one of its ``aliases`` (any case) becomes the
    widget's value, and the address then holds the label as usual. A single choice
    (selectbox) or several (multiselect: every value of the key in the address).
    """
    raw = st.query_params.get_all(key)
    if not raw:
        return
    labels = {format_func(o): o for o in options}
    if all(r in labels for r in raw):
        return  # the usual address: Streamlit reads it itself
    lookup: dict[str, Any] = {}
    for o in options:
        for name in (str(o), format_func(o), *aliases(o)):
            lookup.setdefault(" ".join(str(name).split()).casefold(), o)
    def find(r: str):
        return lookup.get(" ".join(r.split()).casefold())

    if not any(find(r) is not None for r in raw if r not in labels):
        return  # nothing a person typed in a link (a label of an option not offered now): Streamlit's own rules
    found = list(dict.fromkeys(o for o in map(find, raw) if o is not None))
    st.session_state[key] = found if multiple else found[0]
