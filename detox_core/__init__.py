"""detox-dashboard: evaluation of text detoxification systems.

The package is importable without Streamlit; only :mod:`detox_core.ui` talks to it.
"""

from detox_core.errors import DetoxError, DetoxInputError

__version__ = "0.1.0"

__all__ = ["DetoxError", "DetoxInputError", "__version__"]
