"""detox-dashboard: evaluation of text detoxification systems.

In a notebook::

    import detox_core
    result = detox_core.score(inputs, outputs, preset="embedded")   # see detox_core.api

The package is importable without Streamlit; only :mod:`detox_core.ui` talks to it.
"""

from detox_core.errors import DetoxError, DetoxInputError

from detox_core.version import __version__

__all__ = ["DetoxError", "DetoxInputError", "Scores", "__version__", "score"]


def __getattr__(name: str):
    """``detox_core.score`` and ``detox_core.Scores``, imported on first use: ``import detox_core``
    stays light (the metrics bring in the models' code)."""
    if name in ("score", "Scores"):
        # Imported here: the metrics only when a notebook scores, not for every import of the package.
        from detox_core import api

        return getattr(api, name)
    raise AttributeError(f"module 'detox_core' has no attribute {name!r}")
