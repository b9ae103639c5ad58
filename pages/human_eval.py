"""Human vs automatic: placeholder until its issue lands."""

from detox_core.ui.placeholder import placeholder_page

placeholder_page(
    "Human vs automatic",
    issue=5,
    plans=[
        "Human judgements beside automatic metrics, sentence by sentence.",
        "Correlations with confidence intervals at sentence, system and ranking level; calibration."
    ],
)
