"""The Leaderboard page: the published and local rankings (:mod:`.board`), a multilingual edition's
per-language ranking (:mod:`.languages`) and the human columns said as they are (:mod:`.human_scores`)."""
