"""The annotation store: projects, items, annotators, pages and answers in SQL."""

from detox_core.annotation.store.store import *  # noqa: F401,F403
