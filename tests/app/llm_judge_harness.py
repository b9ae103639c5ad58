"""Runs the sidebar's LLM judge settings alone (see model_settings_harness.py)."""

from detox_core.ui.sidebar.llm_judge import render_llm_judge_settings

render_llm_judge_settings()
