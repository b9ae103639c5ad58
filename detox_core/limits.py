"""Caps applied at the boundary, shared by every layer that takes text from a person."""

#: Longest toxic sentence, rewrite or reference one request may carry (characters).
MAX_TEXT_CHARS = 1_000
