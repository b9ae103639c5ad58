"""Annotation: placeholder until its issue lands."""

from detox_core.ui.placeholder import placeholder_page

placeholder_page(
    "Annotation",
    issue=6,
    plans=[
        "Crowd-style toxicity, content and fluency tasks with control questions and quality control.",
        "Label aggregation (majority vote, Dawid-Skene) and agreement statistics."
    ],
)
