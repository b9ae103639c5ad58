"""Leaderboard: placeholder until its issue lands."""

from detox_core.ui.placeholder import placeholder_page

placeholder_page(
    "Leaderboard",
    issue=4,
    plans=[
        "The published RUSSE-2022 leaderboard with automatic and human columns.",
        "Locally scored submissions ranked per preset, with bootstrap confidence intervals and tied groups."
    ],
)
