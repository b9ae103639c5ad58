"""Live scoring: placeholder until its issue lands."""

from detox_core.ui.placeholder import placeholder_page

placeholder_page(
    "Live scoring",
    issue=4,
    plans=[
        "Type a toxic sentence and candidate rewrites and see STA, SIM, FL, J and chrF at once.",
        "See the factor that limits J, the word diff to the input and flags (copy, more toxic, empty).",
        "Suggest rewrites with the Delete baseline or a configured seq2seq model."
    ],
)
