"""A metric's sentence-level agreement with a human label within each judged system: which
systems' outputs it judges worst."""

from __future__ import annotations

import pandas as pd

from detox_core.stats.agreement import agreement


def per_system_auc(frame: pd.DataFrame, metric: str, human: str, n_boot: int = 200) -> pd.DataFrame:
    """ROC-AUC of column ``metric`` against the binary human column ``human`` within each
    ``participant_name``, with its 95% bootstrap interval: columns ``system``, ``auc``,
    ``lo``, ``hi``, the worst system first."""
    rows = []
    for system, g in frame.groupby("participant_name"):
        a = agreement(g[metric].to_numpy(float), g[human].to_numpy(float), n_boot=n_boot)
        rows.append({"system": system, "auc": a.roc_auc[0], "lo": a.roc_auc[1], "hi": a.roc_auc[2]})
    return pd.DataFrame(rows).sort_values("auc")
