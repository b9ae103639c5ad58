"""Widgets shared by the scoring pages: preset picker, score cards, error display."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from detox_core.embedded.recipe import EmbeddedMissingError
from detox_core.submissions.explain import explain_j, flags
from detox_core.metrics.registry import registered
from detox_core.models import ModelUnavailableError
from detox_core.text import word_diff
from detox_core.ui import render

PRESET_LABELS = {
    "embedded": "Embedded (offline CPU)",
    "russe2022": "RUSSE-2022 official",
    "textdetox2024": "TextDetox 2024",
}


def preset_label(preset: str, calibrated: bool = True) -> str:
    """How the app names a preset; the official preset without calibration says so."""
    return PRESET_LABELS.get(preset, preset) + ("" if calibrated or preset != "russe2022" else " · raw")


AXES = (("sta", "STA", "non-toxic"), ("sim", "SIM", "same meaning"), ("fl", "FL", "fluency"), ("j", "J", "joint"),
        ("chrf", "chrF", "vs references"))

#: What each number measures, per preset where the recipes differ (``None``: every preset).
AXIS_HELP = {
    ("sta", None): "Style transfer accuracy: how sure the toxicity classifier is that the rewrite is **neutral**, "
    "P(neutral), from 0 (toxic) to 1 (neutral).",
    ("sim", None): "Content similarity: how much of the input's **meaning** the rewrite keeps, the cosine of the two "
    "sentences' embeddings, from 0 (unrelated) to 1 (same meaning).",
    ("sim", "russe2022"): "Content similarity: how much of the input's **meaning** the rewrite keeps, the cosine of "
    "LaBSE-en-ru embeddings; calibrated, 1 = same meaning and about 0.5 or less = another meaning.",
    ("fl", None): "Fluency: whether the rewrite reads as **correct, natural** text, from 0 to 1, relative to the "
    "input: a rewrite as fluent as its input (or more) scores 1.",
    ("fl", "textdetox2024"): "Fluency in the 2024 recipe: chrF of the rewrite against the **references**, from 0 to "
    "1; n/a without references.",
    ("j", None): "Joint score J = STA × SIM × FL for this sentence: high only when the rewrite is neutral, keeps the "
    "meaning **and** reads well, from 0 to 1. A system's J is the mean over its sentences.",
    ("chrf", None): "chrF: character n-gram F-score of the rewrite against the **references** (human rewrites), from "
    "0 to 1; n/a without references. Rewarding closeness to the references, not detoxification as such.",
}


def axis_help(key: str, preset: str | None = None) -> str:
    """What the number of axis ``key`` measures under ``preset``, and its range."""
    return AXIS_HELP.get((key, preset)) or AXIS_HELP[(key, None)]


def has_calibration(preset: str) -> bool:
    """Whether the preset has a calibration that can be switched off (the official 2022 one)."""
    return preset == "russe2022"


def preset_picker(key: str = "preset", container=None) -> tuple[str, bool]:
    """Preset (``embedded`` by default) and whether calibration is on.

    Drawn into ``container`` (by default a row of its own) as a row that wraps on a
    narrow screen. The Calibrated switch is on only where the preset has a
    calibration (RUSSE-2022), and off and greyed out elsewhere.
    """
    row = container or st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
    names = [n for n in PRESET_LABELS if n in registered()]
    label = row.segmented_control(
        "Metric preset", [PRESET_LABELS[n] for n in names], default=PRESET_LABELS["embedded"], required=True,
        key=key, bind="query-params", wrap=True,
        help="Embedded runs offline on the CPU. The official presets need their models (model hub, or local "
        "folders under **Metric models** in the sidebar).",
    )
    name = {v: k for k, v in PRESET_LABELS.items()}[label or PRESET_LABELS["embedded"]]
    if has_calibration(name):
        calibrated = row.toggle(
            "Calibrated", value=True, key=f"{key}_cal", bind="query-params",
            help="The official RUSSE-2022 calibration; off = raw scores.",
        )
        return name, calibrated
    row.toggle("Calibrated", value=False, key=f"{key}_cal_none", disabled=True,
               help="This preset has no calibration: its scores are used as they are. Only the RUSSE-2022 preset "
               "is calibrated.")
    return name, True


def show_scoring_error(err: Exception) -> None:
    """A model that cannot load: what happened and what to do, never a zero score."""
    if isinstance(err, ModelUnavailableError):
        st.error(render.md(err, None), icon=":material/error:")
        st.info("Switch the preset to **Embedded (offline CPU)** to score without any download.")
    elif isinstance(err, EmbeddedMissingError):
        st.error(f"Embedded preset: {err}", icon=":material/error:")
        st.info("Train it from the sidebar (**Metric models**) or with `python -m detox_core train-embedded`.")
    else:
        raise err


def score_bars(row: dict) -> go.Figure:
    names = [label for _, label, _ in AXES]
    values = [row.get(key) for key, _, _ in AXES]
    colors = ["#2e7d5b" if (v is not None and v == v and v >= 0.7) else "#e67e22" if (v is not None and v == v and v >= 0.4)
              else "#c0392b" for v in values]
    fig = go.Figure(go.Bar(
        x=[0 if v is None or v != v else v for v in values], y=names, orientation="h", marker_color=colors,
        text=["n/a" if v is None or v != v else f"{v:.2f}" for v in values], textposition="outside",
        hovertemplate="%{y}: %{x:.3f}<extra></extra>",
    ))
    fig.update_layout(height=200, margin=dict(t=5, b=5, l=5, r=10), xaxis=dict(range=[0, 1.3], showgrid=False),
                      yaxis=dict(autorange="reversed"))
    return fig


def score_card(source: str, output: str, row: dict, lexicon: frozenset[str], sta_input: float | None = None,
               title: str | None = None, preset: str | None = None) -> None:
    """One rewrite: metrics, bars, what limits J, flags and the word diff to the input."""
    with st.container(border=True):
        if title:
            st.markdown(f"**{render.md(title, None)}**")
        cols = st.columns(5)
        for col, (key, label, _) in zip(cols, AXES):
            value = row.get(key)
            col.metric(label, "n/a" if value is None or value != value else f"{value:.2f}",
                       help=axis_help(key, preset))
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
            st.plotly_chart(score_bars(row), width="stretch", config={"displayModeBar": False})
        st.markdown(explain_j(row["sta"], row["sim"], row["fl"]))
        labels = flags(source, output, lexicon, row.get("sta_raw"), sta_input).labels()
        if labels:
            st.markdown(" ".join(f":orange-badge[{label}]" for label in labels))
