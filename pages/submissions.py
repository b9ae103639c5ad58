"""Submissions: placeholder until its issue lands."""

from detox_core.ui.placeholder import placeholder_page

placeholder_page(
    "Submissions",
    issue=4,
    plans=[
        "Upload a submission (one output per line, or TSV) and see every problem with its line number.",
        "Per-sentence scores with the reason each J is low; filters, distributions and CSV export.",
        "Load the shipped baseline and participant outputs with one click."
    ],
)
