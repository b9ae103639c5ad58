"""Tables as users read them: a missing value is a dash, never the word "None"."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

DASH = "—"


def _formatted(value, fmt: str | None) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return DASH
    if fmt and fmt.startswith("%"):
        try:
            return fmt % value
        except (TypeError, ValueError):
            return str(value)
    return f"{value:,}" if isinstance(value, int) else str(value)


def without_none(frame: pd.DataFrame, config: Mapping[str, object] | None = None) -> tuple[pd.DataFrame, dict]:
    """``frame`` and its ``column_config`` with missing cells shown as a dash.

    ``st.dataframe`` draws a missing cell as a grey "None", which users read as a value.
    Text columns get the dash; a number column with missing values becomes text
    formatted with its column's format (fixed decimals, so a click on the header still
    orders it), and its configuration a text column with the same label, help and width.
    Progress columns draw a missing value as an empty cell and are left as they are.
    """
    out = frame.copy()
    cfg: dict = dict(config or {})
    for col in out.columns:
        missing = out[col].isna()
        if not missing.any():
            continue
        entry = cfg.get(col)
        kind = entry.get("type_config", {}).get("type") if isinstance(entry, dict) else None
        if kind == "progress":
            continue
        if pd.api.types.is_numeric_dtype(out[col]) or kind == "number":
            fmt = entry.get("type_config", {}).get("format") if isinstance(entry, dict) else None
            out[col] = [_formatted(v, fmt) for v in out[col].tolist()]
            if isinstance(entry, dict):
                cfg[col] = st.column_config.TextColumn(entry.get("label"), help=entry.get("help"),
                                                       width=entry.get("width"))
        else:
            out[col] = out[col].astype(object).where(~missing, DASH)
    return out, cfg
