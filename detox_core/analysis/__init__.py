"""Analysis of scores: statistics (bootstrap, agreement, ranks), the corpus explorer's
search and statistics, leaderboards, comparison of systems and meta-evaluation against
human judgements (calibration has its own package, :mod:`detox_core.calibration`).

- :mod:`.stats`: bootstrap intervals, paired significance, agreement, rank ranges;
- :mod:`.corpus`: search, filters and statistics of a parallel corpus;
- :mod:`.regex_search`: visitors' regular expressions, compiled and matched in capped worker processes;
- :mod:`.leaderboard`: published and local rankings, human scores per system;
- :mod:`.compare`: side-by-side systems, paired differences, win/tie/loss;
- :mod:`.failure_groups`: a system's worst outputs grouped by meaning (failure kinds);
- :mod:`.similar`: nearest neighbours by meaning among inputs and outputs, across languages;
- :mod:`.meta_eval`: human vs automatic metrics, joins of scores to judgements.
"""
