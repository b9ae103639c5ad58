"""Published per-language and per-axis leaderboards of the multilingual editions."""

from __future__ import annotations

import math

import pytest

from detox_core.config import SHARED_MIRRORS
from detox_core.data.leaderboards import load_axes_leaderboard, load_language_leaderboard, teams_by_language
from detox_core.errors import DetoxInputError

BOARDS = SHARED_MIRRORS / "textdetox" / "leaderboards"
NINE = ["en", "es", "de", "zh", "ar", "hi", "uk", "ru", "am"]


def test_a_per_language_table_with_averages_ranks_and_gaps():
    text = "team,en,ar,avg,rank\nA,0.6,0.4,0.5,1\nB,0.3,,0.3,2\n"
    frame = load_language_leaderboard(text.encode(), name="lb.csv")
    assert frame.attrs["languages"] == ["en", "ar"] and frame.attrs["averages"] == ["avg"]
    assert frame["rank"].tolist() == [1, 2] and math.isnan(frame.loc[1, "ar"])  # not given, not zero
    assert teams_by_language(frame).loc["A"].tolist() == [0.6, 0.4]


@pytest.mark.parametrize("text, message", [
    ("team,avg\nA,0.5\n", "lb.csv, line 1: expected a column per language"),
    ("team,en\nA,1.5\n", "lb.csv, line 2, column 'en': expected a number in [0, 1], found '1.5'"),
    ("team,en,rank\nA,0.5,1.5\n", "lb.csv, line 2, column 'rank': expected a whole rank"),
    ("team,lang,j\nA,xx,0.5\n", "lb.csv, line 2, column 'lang': unknown language code 'xx'"),
])
def test_broken_tables_are_named_with_their_line(text, message):
    loader = load_axes_leaderboard if ",lang," in text else load_language_leaderboard
    with pytest.raises(DetoxInputError) as err:
        loader(text.encode(), name="lb.csv")
    assert message in str(err.value)


@pytest.mark.skipif(not BOARDS.is_dir(), reason="no offline mirror of the TextDetox files beside the project")
@pytest.mark.parametrize("name, rows, languages, averages", [
    ("textdetox2024_auto.csv", 35, NINE, ["avg"]),
    ("textdetox2024_human.csv", 21, NINE, ["avg"]),
    ("textdetox2025_auto.csv", 15, [*NINE, "it", "fr", "he", "hin", "ja", "tt"], ["avg_p", "avg_np"]),
    ("textdetox2025_llmjudge.csv", 32, [*NINE, "it", "fr", "he", "hin", "ja", "tt"], ["avg_p", "avg_np"]),
])
def test_the_mirrors_published_tables_load(name, rows, languages, averages):
    frame = load_language_leaderboard(BOARDS / name)
    assert len(frame) == rows and frame.attrs["languages"] == languages and frame.attrs["averages"] == averages


@pytest.mark.skipif(not BOARDS.is_dir(), reason="no offline mirror of the TextDetox files beside the project")
def test_the_mirrors_per_axis_tables_load():
    auto = load_axes_leaderboard(BOARDS / "textdetox2024_auto_axes.csv")
    human = load_axes_leaderboard(BOARDS / "textdetox2024_human_axes.csv")
    assert len(auto) == len(human) == 175 and auto["lang"].nunique() == 9
    assert {"sta", "sim", "chrf", "j"} <= set(auto.columns) and {"sta", "sim", "fl", "j"} <= set(human.columns)
    # 2024's ranking was by the mean over languages of automatic J: the table's avg says so.
    table = load_language_leaderboard(BOARDS / "textdetox2024_auto.csv")
    top = table.iloc[0]
    assert top["avg"] == pytest.approx(sum(top[NINE]) / 9, abs=0.002)


def test_either_shape_loads_as_one_published_table():
    from detox_core.data.leaderboards import load_published

    per_language = load_published(b"team,en,ar,avg_p,rank_p\nA,0.6,0.4,0.5,1\nB,0.3,,0.3,2\n", "Auto", name="a.csv")
    assert per_language.axes == ("j",) and per_language.languages == ("en", "ar")
    # The gap stays a gap: B has no Arabic row, not a zero.
    assert per_language.scores[["team", "lang", "j"]].values.tolist() == [["A", "en", 0.6], ["B", "en", 0.3],
                                                                            ["A", "ar", 0.4]]
    assert per_language.official.columns.tolist() == ["team", "avg_p", "rank_p"]
    per_axis = load_published(b"team,lang,sta,sim,fl,j\nA,en,0.9,0.8,0.7,0.5\nA,ar,0.5,,,\n", "Human axes",
                              name="h.csv")
    assert per_axis.axes == ("sta", "sim", "fl", "j") and per_axis.languages == ("en", "ar")
    assert per_axis.official.columns.tolist() == ["team"] and len(per_axis.scores) == 2
    assert math.isnan(per_axis.scores.set_index("lang").loc["ar", "j"])
    with pytest.raises(DetoxInputError) as err:
        load_published(b"team,lang,j\nA,xx,0.5\n", "bad", name="bad.csv")
    assert err.value.line == 2 and "xx" in str(err.value)
