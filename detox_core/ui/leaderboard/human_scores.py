"""The Leaderboard's human columns said as they are (their source, counts and minimum), and
the signature a ranking's caption carries."""

from __future__ import annotations

import streamlit as st

from detox_core.ui.app import render
from detox_core.ui.app.submission_store import shared_store


def board_signature(preset: str, calibrated: bool, dataset: str, split: str) -> dict:
    """The signature stored with a submission of this ranking (its preset's models and
    versions): the same for every submission of one preset and calibration."""
    listed = shared_store().list(dataset=dataset, split=split, preset=preset)
    listed = listed[listed["calibrated"] == calibrated]
    stored = shared_store().get(int(listed["id"].iloc[0])) if len(listed) else None
    return dict(stored.signature) if stored else {}


def human_source_note(humans) -> None:
    """Which annotation project feeds the human columns, and which of its systems have
    too few judged outputs to be shown as human scores."""
    projects = sorted({s for s in humans["source"] if str(s).startswith("annotation project ")})
    below = humans.attrs.get("below_minimum", [])
    minimum = humans.attrs.get("min_judged", 50)
    if not projects and not below:
        return
    names = sorted({b["source"] for b in below} | set(projects))
    lines = [f"Human scores from {render.md(', '.join(names), None)}, chosen by the organizers for this Leaderboard; "
             f"each with its judged outputs and a 95% interval."]
    if below:
        listed = "; ".join(f"{render.md(b['system'], None)} ({b['n']} judged)" for b in below)
        lines.append(f"Not shown as human scores, below the minimum of {minimum} judged outputs per system: {listed}.")
    st.caption(" ".join(lines))
