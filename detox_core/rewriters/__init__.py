"""Rewriters: the Delete baseline, seq2seq models, and rewrites from a chat LLM."""
