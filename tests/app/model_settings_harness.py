"""Runs the sidebar's model settings alone (AppTest of app.py starts every run in
Streamlit's legacy pages/ mode, which drops button clicks)."""

from detox_core.ui.sidebar.model_settings import render_model_settings

render_model_settings()
