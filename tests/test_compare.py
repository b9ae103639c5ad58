"""Side-by-side tables, largest differences and win/tie/loss counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detox_core.compare import largest_differences, side_by_side, win_tie_loss


def frame(outputs, j, chrf=None):
    n = len(outputs)
    return pd.DataFrame({"idx": range(n), "input": [f"in{i}" for i in range(n)], "output": outputs,
                         "sta": j, "sim": j, "fl": j, "j": j, "chrf": chrf if chrf is not None else [np.nan] * n})


def test_side_by_side_and_win_tie_loss():
    a = frame(["x", "y", "z", "same"], [0.9, 0.5, 0.2, 0.4])
    b = frame(["x2", "y2", "z2", "same"], [0.1, 0.52, 0.6, 0.9])
    table = side_by_side({"A": a, "B": b})
    assert list(table["line"]) == [1, 2, 3, 4] and list(table["output:B"]) == ["x2", "y2", "z2", "same"]
    wtl = win_tie_loss(table, "A", "B").set_index("axis")
    # Row 1 A wins, row 2 tie (0.02 < 0.05), row 3 loss, row 4 identical outputs = tie.
    assert wtl.loc["j"].to_dict() == {"win": 1, "tie": 2, "loss": 1}
    assert wtl.loc["chrf"].to_dict() == {"win": 0, "tie": 0, "loss": 0}  # no references
    top = largest_differences(table, "A", "B")
    assert list(top["line"])[:2] == [1, 4]


def test_different_inputs_are_refused():
    a = frame(["x"], [0.5])
    b = frame(["y", "z"], [0.5, 0.5])
    with pytest.raises(ValueError, match="same inputs"):
        side_by_side({"A": a, "B": b})
    with pytest.raises(ValueError, match="at least two"):
        side_by_side({"A": a})
