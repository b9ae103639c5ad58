"""Compare systems: placeholder until its issue lands."""

from detox_core.ui.placeholder import placeholder_page

placeholder_page(
    "Compare systems",
    issue=4,
    plans=[
        "Two or more systems on the same inputs: per-sentence scores, largest differences, win/tie/loss per axis."
    ],
)
