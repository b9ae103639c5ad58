"""Live scoring's computing (the page draws in :mod:`detox_core.ui.live_scoring`): the request a
visitor typed, checked and bounded (:mod:`.request`), what the page offers for a language (its
examples and lexicon: :mod:`.inputs`), and which rewrite may be called the best (:mod:`.best`, with
the shipped "unrelated" ceilings of every language)."""
