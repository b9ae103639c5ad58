"""Caps applied at the boundary, shared by every layer that takes text from a person."""

#: Longest toxic sentence, rewrite or reference one request may carry (characters).
MAX_TEXT_CHARS = 1_000

#: Longest output one line of a submission may hold (characters): far beyond any rewrite
#: of a sentence (the editions' toxic inputs are under 1,000), and short enough that a
#: file of such lines cannot take gigabytes to score (one 5M-character line once took 2.7 GB).
MAX_OUTPUT_CHARS = 5_000
