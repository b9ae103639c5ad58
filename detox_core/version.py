"""The library's version (recorded in every signature); pyproject.toml says the same."""

__version__ = "0.1.0"
