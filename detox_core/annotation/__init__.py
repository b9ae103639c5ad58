"""Crowd-style annotation: aggregation and quality control of judgements.

Answers are a DataFrame with one row per judgement: ``worker``, ``task`` (item id),
``label``, optional ``golden`` (the known answer of a control item) and ``seconds``.
"""
