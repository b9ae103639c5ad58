"""The offline preset's parts (registered as ``embedded`` by :mod:`detox_core.metrics.offline`):
heads the project trains from the corpus, their training, and how they score a pair."""
