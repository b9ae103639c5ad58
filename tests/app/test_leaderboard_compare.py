"""AppTests of the Leaderboard and Compare pages over stored submissions."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from detox_core import editions
from detox_core.analysis.corpus import prepare_corpus
from detox_core.data import PROJECT_ROOT
from detox_core.submissions.store import Store
from detox_core.submissions.service import score_and_store, split_inputs

from detox_core.analysis import preset_agreement
from detox_core.analysis.preset_agreement import shipped_figures as SHIPPED_FIGURES  # before any test patches it

pytestmark = pytest.mark.usefixtures("no_shipped_agreement")  # tables read by position

LEADERBOARD = str(PROJECT_ROOT / "pages" / "leaderboard.py")
COMPARE = str(PROJECT_ROOT / "pages" / "compare.py")


def store_scored(tiny_data, files: list[tuple[str, bytes]], source: str) -> Store:
    """The app's store with ``(name, content)`` files scored on the tiny test split."""
    store = Store(f"sqlite:///{tiny_data / 'detox.sqlite'}")
    inputs, refs = split_inputs(prepare_corpus(editions.load_dataset("russe2022", ["test"], tiny_data)), "test")
    for name, content in files:
        score_and_store(store, content, name, dataset="russe2022", split="test", inputs=inputs,
                        references=refs, preset="embedded", calibrated=True, source=source)
    return store


@pytest.fixture
def scored(tiny_data):
    outputs = tiny_data / "russe2022" / "outputs"
    return store_scored(tiny_data, [(f"{n}_test.txt", (outputs / f"{n}_test.txt").read_bytes())
                                    for n in ("delete", "copy")], "shipped")


def run(path: str) -> AppTest:
    at = AppTest.from_file(path, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_leaderboard_ranks_stored_submissions(scored):
    at = run(LEADERBOARD)
    table = at.dataframe[-1].value
    assert set(table["system"]) == {"delete_test.txt", "copy_test.txt"}
    assert list(table["j"]) == sorted(table["j"], reverse=True)
    assert {"rank", "group", "interval"} <= set(table.columns)
    at.segmented_control(key="lb_axis").set_value("sta").run()
    assert not at.exception
    assert list(at.dataframe[-1].value["sta"]) == sorted(at.dataframe[-1].value["sta"], reverse=True)


def test_leaderboard_without_submissions(tiny_data):
    at = run(LEADERBOARD)
    assert any("Nothing scored" in i.value for i in at.info)


def test_compare_two_systems(scored):
    at = run(COMPARE)
    assert len(at.multiselect(key="cmp_systems").value) == 2
    significance, table = at.dataframe[0].value, at.dataframe[1].value
    assert len(table) == 1 and {"delta", "line"} <= set(table.columns)
    # One pair, tested on J by default, every axis on request; no cell reads None.
    assert len(significance) == 1 and significance["axis"].tolist() == ["J"]
    assert {"delta", "interval", "p", "verdict"} <= set(significance.columns)
    at.segmented_control(key="cmp_sig_axis").set_value("all").run()
    every = at.dataframe[0].value
    # BERTScore is off (no system has a score on it): said once, not a row of empty figures.
    assert sorted(every["axis"]) == sorted(["STA", "SIM", "FL", "J", "chrF", "BLEU", "ROUGE-L"])
    assert any(c.value.startswith("BERTScore: n/a for these systems") for c in at.caption)
    assert "n/a (no scores)" not in set(every["verdict"])
    assert all(d.proto.placeholder == "—" for d in at.dataframe)  # tiny data has no chrF references: no "None"


def test_compare_needs_two(tiny_data):
    at = run(COMPARE)
    assert any("Nothing scored" in i.value for i in at.info)


def test_a_submission_scored_on_its_page_appears_on_the_leaderboard(tiny_data):
    sub = run(str(PROJECT_ROOT / "pages" / "submissions.py"))
    sub.selectbox(key="sub_shipped").set_value("delete").run()
    next(b for b in sub.button if b.label == "Score this output").click().run()
    assert not sub.exception
    board = run(LEADERBOARD)
    assert "delete_test.txt" in board.dataframe[-1].value["system"].tolist()


@pytest.fixture
def same_name(tiny_data):
    """Two different files uploaded under the same file name."""
    return store_scored(tiny_data, [("outputs.txt", "как же надоело\n".encode()),
                                    ("outputs.txt", "сука как же надоело\n".encode())], "upload")


def test_same_name_submissions_are_both_ranked_and_compared(same_name):
    ids = same_name.list()["id"].tolist()
    board = run(LEADERBOARD)
    assert sorted(board.dataframe[-1].value["system"]) == sorted(f"outputs.txt #{i}" for i in ids)
    at = run(COMPARE)
    assert sorted(at.multiselect(key="cmp_systems").value) == sorted(ids)
    assert len(at.dataframe[1].value) == 1


def test_organizer_renames_hides_and_deletes_a_submission(scored):
    sub = run(str(PROJECT_ROOT / "pages" / "submissions.py"))
    ids = scored.list()["id"].tolist()
    sub.selectbox(key="sub_manage_id").set_value(ids[0]).run()
    sub.text_input(key=f"sub_manage_name_{ids[0]}").input("renamed.txt").run()
    next(b for b in sub.button if b.key == "sub_manage_rename").click().run()
    assert not sub.exception and "Renamed to renamed.txt" in sub.success[0].value
    assert "renamed.txt" in run(LEADERBOARD).dataframe[-1].value["system"].tolist()
    # Hidden: stored, still listed for the organizer, gone from the leaderboard and compare.
    sub.selectbox(key="sub_manage_id").set_value(ids[0]).run()
    next(b for b in sub.button if b.key == "sub_manage_hide").click().run()
    assert scored.list(include_hidden=True)["hidden"].tolist().count(True) == 1
    assert "renamed.txt" not in run(LEADERBOARD).dataframe[-1].value["system"].tolist()
    assert any("at least two" in i.value for i in run(COMPARE).info)
    # Deleted only after typing its name.
    sub.selectbox(key="sub_manage_id").set_value(ids[1]).run()
    name = scored.get(ids[1]).name
    assert next(b for b in sub.button if b.key == "sub_manage_delete").disabled
    sub.text_input(key=f"sub_manage_del_{ids[1]}").input(name).run()
    next(b for b in sub.button if b.key == "sub_manage_delete").click().run()
    assert scored.get(ids[1]) is None and len(scored.list(include_hidden=True)) == 1


def test_visitors_do_not_manage_submissions_nor_see_hidden_ones(scored, monkeypatch):
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "s3cret-organizer")
    monkeypatch.setenv("DETOX_PUBLIC_PAGES", "corpus,submissions,leaderboard")
    scored.set_hidden(scored.list()["id"].tolist()[0], True)
    sub = run(str(PROJECT_ROOT / "pages" / "submissions.py"))
    assert not [b for b in sub.button if b.key and b.key.startswith("sub_manage")]
    assert len(sub.dataframe[0].value) == 1
    monkeypatch.setenv("DETOX_PUBLIC_PAGES", "corpus")
    refused = run(COMPARE)
    assert "for the organizers" in refused.error[0].value


def test_leaderboard_shows_no_none_and_its_p_values_openly(scored):
    import json

    at = run(LEADERBOARD)
    for frame in at.dataframe:
        # Streamlit draws a missing cell as a grey "None" unless told otherwise: every table says "—".
        assert frame.proto.placeholder == "—"
    local = at.dataframe[-1].value
    assert local["source"].isna().any() and local["j_human"].isna().any()  # these cells are the missing ones
    assert local["j_human"].dtype.kind == "f"  # still numbers: a click on the header sorts them
    published = [f for f in at.dataframe if "team" in f.value.columns]
    if published:  # the sorted-by columns first, so they are on screen
        order = list(published[0].proto.column_order)
        assert order[:4] == ["team", "method", "j_human", "j_auto"]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    heat = next(c for c in charts if c["data"][0]["type"] == "heatmap")
    z, text = heat["data"][0]["z"], heat["data"][0]["text"]
    assert all(z[i][i] is None and text[i][i] == "" for i in range(len(z)))  # no 1.000 on the diagonal
    for i, row in enumerate(z):
        for j, p in enumerate(row):
            if p is not None:
                assert text[i][j].endswith(" *") == (p < 0.05)
    assert heat["layout"]["xaxis"]["title"]["text"] and heat["data"][0]["colorbar"]["title"]["text"] == "p-value"
    assert not [e for e in at.expander if "p-values" in e.label]  # not hidden in a closed expander


# ------------------------------------------------------------------ multilingual editions (TextDetox)

MULTI_SYSTEMS = {
    # name: (J level per language in the edition's order (cycled), languages answered or None for all)
    "strong.tsv": ((0.8, 0.6, 0.7), None),
    "weak.tsv": ((0.3, 0.2, 0.4), None),
    "partial.tsv": ((0.9,), 3),  # answers only the first three languages
}


def store_multilingual(store: Store, dataset: str, split: str, *, no_j: tuple[str, ...] = (),
                       systems=MULTI_SYSTEMS, preset: str = "textdetox2024",
                       calibrated: bool = False) -> dict[str, int]:
    """Synthetic scored submissions of a fetched multilingual split, stored with their
    languages: J around a per-language level, NaN (no references) in ``no_j``."""
    import numpy as np
    import pandas as pd

    from detox_core.vocab import RAW_COLUMNS, SCORE_COLUMNS

    inputs = editions.get_edition(dataset).load([split])
    order = list(dict.fromkeys(inputs["lang"]))
    rng = np.random.default_rng(7)
    ids = {}
    for name, (levels, first) in systems.items():
        rows = inputs[inputs["lang"].isin(order[:first] if first else order)]
        level = rows["lang"].map({lang: levels[i % len(levels)] for i, lang in enumerate(order)}).to_numpy()
        j = np.clip(level + rng.normal(0, 0.05, len(rows)), 0, 1)
        scores = pd.DataFrame({"sta": np.clip(j + 0.1, 0, 1), "sim": 0.8, "fl": 0.9, "j": j, "chrf": np.nan})
        scores.loc[rows["lang"].isin(no_j).to_numpy(), ["fl", "j"]] = np.nan
        for col in RAW_COLUMNS:
            scores[col] = scores[col.removesuffix("_raw")]
        meta = store.add(name=name, sha256=f"{name}-{dataset}-{split}-{preset}", dataset=dataset, split=split,
                         preset=preset, calibrated=calibrated, source="upload",
                         inputs=rows["toxic_comment"].tolist(), outputs=rows["toxic_comment"].tolist(),
                         scores=scores.reindex(columns=[*SCORE_COLUMNS, *RAW_COLUMNS]), langs=rows["lang"].tolist())
        ids[name] = meta.id
    return ids


def fetched_textdetox2024(tmp_path, monkeypatch) -> Store:
    """The fetched TextDetox 2024 edition as the data folder, and a temporary database."""
    import os

    root = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data"))
    if not (root / "textdetox2024" / "test_inputs.tsv").is_file():
        pytest.skip("TextDetox 2024 not fetched: run `python -m detox_core fetch-data`")
    monkeypatch.setenv("DETOX_DATA_DIR", str(root))
    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{tmp_path / 'detox.sqlite'}")
    return Store(f"sqlite:///{tmp_path / 'detox.sqlite'}")


@pytest.fixture
def textdetox2024(tmp_path, monkeypatch):
    """The fetched TextDetox 2024 edition with synthetic stored submissions of its test
    split (J without references in Amharic and Chinese) in a temporary database."""
    store = fetched_textdetox2024(tmp_path, monkeypatch)
    return store, store_multilingual(store, "textdetox2024", "test", no_j=("am", "zh"))


def run_on(path: str, dataset: str) -> AppTest:
    at = AppTest.from_file(path, default_timeout=120)
    at.query_params["dataset"] = dataset
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def frame_with(at: AppTest, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_leaderboard_of_a_multilingual_edition(textdetox2024):
    import json

    import numpy as np

    store, ids = textdetox2024
    at = run_on(LEADERBOARD, "TextDetox 2024")
    # Published beside: the final (human) table first, a column per language, its official average.
    published = frame_with(at, "team")
    assert {"en", "am", "zh", "mean", "coverage", "avg", "rank"} <= set(published.columns)
    assert published.loc[published["team"] == "SomethingAwful", "avg"].item() == pytest.approx(0.77)
    # J of Amharic and Chinese has no references: said, and left out of the mean, not zero.
    warning = " ".join(w.value for w in at.warning)
    assert "n/a — no references for Amharic (am), Chinese (zh)" in warning
    local = frame_with(at, "mean_over")
    strong = local[local["system"] == "strong.tsv"].iloc[0]
    rows = store.scores(ids["strong.tsv"])
    by_hand = rows[~rows["lang"].isin(["am", "zh"])].groupby("lang")["j"].mean().mean()
    assert strong["mean"] == pytest.approx(by_hand) and np.isnan(strong["am"]) and "am" not in strong["mean_over"]
    assert strong["rank"] == "1" and strong["coverage"] == "all 9"
    # The official average is over all nine languages: n/a while two of them have no J.
    assert np.isnan(strong["avg"])
    partial = local[local["system"] == "partial.tsv"].iloc[0]
    assert partial["rank"] == "partial" and partial["coverage"].startswith("3 of 9 (no ")
    assert local["system"].tolist()[-1] == "partial.tsv"  # listed after the ranked ones
    per_lang = frame_with(at, "lang")  # per-language intervals and tied groups
    assert set(per_lang["lang"]) == {"ar", "de", "en", "es", "hi", "ru", "uk"}
    assert {"rank", "group", "interval"} <= set(per_lang.columns)
    # The heat map: published teams and local submissions x languages, the values written in the cells.
    heat = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                if "lb_heat" in c.proto.id or "Human References" in str(json.loads(c.proto.spec)["data"][0].get("y")))
    data = heat["data"][0]
    assert "local: strong.tsv" in data["y"] and "SomethingAwful" in data["y"]
    assert all(t == "" or t == f"{z:.2f}" for zr, tr in zip(data["z"], data["text"]) for z, t in zip(zr, tr))
    # Fewer languages picked in the sidebar: the columns and the mean follow.
    at.multiselect(key="languages").set_value(["en", "ar"])
    next(b for b in at.button if b.label == "Apply").click().run()  # the languages are applied at once
    assert not at.exception
    local = frame_with(at, "mean_over")
    assert not at.warning or "n/a" not in " ".join(w.value for w in at.warning)
    strong = local[local["system"] == "strong.tsv"].iloc[0]
    assert strong["mean"] == pytest.approx(rows[rows["lang"].isin(["en", "ar"])].groupby("lang")["j"].mean().mean())
    assert "zh" not in local.columns and "zh" not in frame_with(at, "team").columns
    # Another axis, STA, has every language.
    at.segmented_control(key="lb_axis").set_value("sta").run()
    assert not at.exception
    local = frame_with(at, "mean_over")
    assert local["mean"][local["rank"] != "partial"].notna().all()
    strong = local[local["system"] == "strong.tsv"].iloc[0]
    by_hand = rows.groupby("lang")["sta"].mean().mean()  # STA of every language: the official average is there
    assert strong["avg"] == pytest.approx(by_hand) and strong["mean"] != pytest.approx(by_hand)
    partial = local[local["system"] == "partial.tsv"].iloc[0]  # answers neither English nor Arabic: no mean, said
    assert partial["coverage"] == "0 of 2 (no ar, en)" and partial["mean"] != partial["mean"]


def test_the_edition_averages_are_called_official_only_in_the_official_presets_ranking(tmp_path, monkeypatch):
    """TextDetox 2025 ranks by avg_p and avg_np with its own preset: a ranking by the embedded
    preset (or 2024's) has the same columns, named by formula and preset, not "Official"."""
    import json
    import os

    root = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data"))
    if not (root / "textdetox2025" / "dev_inputs.tsv").is_file():
        pytest.skip("TextDetox 2025 not fetched: run `python -m detox_core fetch-data`")
    monkeypatch.setenv("DETOX_DATA_DIR", str(root))
    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{tmp_path / 'detox.sqlite'}")
    # The real data folder: the shipped agreement is stated (without it, the page would measure the
    # embedded preset per language on a fresh checkout, minutes of scoring, past this run's limit).
    monkeypatch.setattr(preset_agreement, "shipped_figures", SHIPPED_FIGURES)
    store = Store(f"sqlite:///{tmp_path / 'detox.sqlite'}")
    two = {k: MULTI_SYSTEMS[k] for k in ("strong.tsv", "weak.tsv")}
    for preset in ("embedded", "textdetox2024", "textdetox2025"):
        store_multilingual(store, "textdetox2025", "dev", systems=two, preset=preset)
    at = AppTest.from_file(LEADERBOARD, default_timeout=120)
    at.query_params["dataset"] = "TextDetox 2025"
    at.query_params["splits"] = "dev"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    boards = [json.loads(d.proto.columns) for d in at.dataframe if "mean_over" in d.value.columns]
    labels = {cols["avg_p"]["label"]: (cols["avg_np"]["label"], cols["avg_p"]["help"]) for cols in boards}
    assert set(labels) == {"avg_p (9 languages), Embedded (offline CPU) preset",
                           "avg_p (9 languages), TextDetox 2024 preset", "Official avg_p (9)"}
    assert labels["Official avg_p (9)"][0] == "Official avg_np (6)"
    embedded_np, embedded_help = labels["avg_p (9 languages), Embedded (offline CPU) preset"]
    assert embedded_np == "avg_np (6 languages), Embedded (offline CPU) preset"
    assert "Not TextDetox 2025's official avg_p" in embedded_help and "TextDetox 2025 preset" in embedded_help
    caption = " ".join(c.value for c in at.caption)
    assert "Official avg_p" not in caption
    assert "official averages only in the TextDetox 2025 preset's ranking" in caption


def test_compare_on_a_multilingual_edition(textdetox2024):
    store, ids = textdetox2024
    at = AppTest.from_file(COMPARE, default_timeout=120)
    at.query_params["dataset"] = "TextDetox 2024"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    per = frame_with(at, "system")
    assert {"en", "am", "mean"} <= set(per.columns)
    strong = per[per["system"] == "strong.tsv"].iloc[0]
    rows = store.scores(ids["strong.tsv"])
    assert strong["mean"] == pytest.approx(rows[~rows["lang"].isin(["am", "zh"])].groupby("lang")["j"].mean().mean())
    assert strong["am"] != strong["am"]  # n/a, not 0
    gaps = [w.value for w in at.warning if "n/a — no references for" in w.value]
    assert any(g.startswith("FL and J: n/a — no references for") and "Amharic" in g and "Chinese" in g for g in gaps), gaps
    # The reference metrics, unscored in every language, are said once each with their reason, not
    # as "no references" for all nine languages.
    assert not any(g.startswith("chrF") for g in gaps), gaps
    captions = [c.value for c in at.caption]
    assert any(c.startswith("chrF: n/a for these systems") for c in captions), captions
    assert len(gaps) == len({g.split("no references for ")[1] for g in gaps})  # one message per set of languages
    # A partial submission: said, and the systems compared on the languages all of them answer.
    at.multiselect(key="cmp_systems").set_value([ids["strong.tsv"], ids["partial.tsv"]]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("partial.tsv is partial" in w.value for w in at.warning)
    assert len(frame_with(at, "system").columns) == 2 + 3  # system, mean and its three languages


def test_the_leaderboard_shows_the_reference_metrics_and_the_official_script_chrf(tiny_data):
    from nltk.translate.chrf_score import corpus_chrf

    sub = run(str(PROJECT_ROOT / "pages" / "submissions.py"))
    sub.selectbox(key="sub_shipped").set_value("copy").run()
    next(b for b in sub.button if b.label == "Score this output").click().run()
    table = run(LEADERBOARD).dataframe[-1].value
    assert {"chrf", "chrf_official", "bleu", "rouge_l", "bertscore"} <= set(table.columns)
    assert table.loc[0, "chrf_official"] == pytest.approx(corpus_chrf([["как же надоело"]], ["сука как же надоело"]))
    assert table.loc[0, "rouge_l"] == pytest.approx(2 * 0.75 / 1.75)
    # Ranked by BERTScore, which is off (n/a): no rank, no interval made of NaN, and said so.
    at = run(LEADERBOARD)
    at.segmented_control(key="lb_axis").set_value("bertscore").run()
    assert not at.exception
    ranked = at.dataframe[-1].value
    assert ranked.loc[0, "rank"] == "—" and ranked.loc[0, "interval"] == "—"
    assert any("BERTScore is n/a for 1 of 1" in c.value for c in at.caption)


def test_the_published_chrf_is_named_as_the_official_script_computes_it(real_data, tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{tmp_path / 'db.sqlite'}")
    at = run(LEADERBOARD)
    columns = json.loads(at.dataframe[0].proto.columns)
    assert columns["chrf"]["label"] == "chrF (RUSSE-2022 script, nltk corpus)"
    assert "references joined into one string" in columns["chrf"]["help"]


@pytest.fixture
def ru_only_2024(tmp_path, monkeypatch):
    """Two complete TextDetox 2024 files (all 9 languages answered) and one answering only
    Russian and English, all scored by a preset that covers Russian only: stored rows of
    Russian alone, with the languages each file answers."""
    import numpy as np
    import pandas as pd

    from detox_core.metrics.embedded.preset import EmbeddedPreset
    from detox_core.vocab import RAW_COLUMNS, SCORE_COLUMNS

    # The embedded preset as on a server trained without the TextDetox inputs: Russian only.
    monkeypatch.setattr(EmbeddedPreset, "trained_languages", classmethod(lambda cls: ("ru",)))
    store = fetched_textdetox2024(tmp_path, monkeypatch)
    inputs = editions.get_edition("textdetox2024").load(["test"])
    ru = inputs[inputs["lang"] == "ru"]
    every = tuple(dict.fromkeys(inputs["lang"]))
    rng = np.random.default_rng(3)
    for name, level, answered in (("first.tsv", 0.7, every), ("second.tsv", 0.4, every), ("two.tsv", 0.9, ("en", "ru"))):
        j = np.clip(level + rng.normal(0, 0.05, len(ru)), 0, 1)
        scores = pd.DataFrame({"sta": j, "sim": 0.9, "fl": 1.0, "j": j, "chrf": np.nan})
        for col in RAW_COLUMNS:
            scores[col] = scores[col.removesuffix("_raw")]
        store.add(name=name, sha256=name, dataset="textdetox2024", split="test", preset="embedded", calibrated=True,
                  source="upload", inputs=ru["toxic_comment"].tolist(), outputs=ru["toxic_comment"].tolist(),
                  scores=scores.reindex(columns=[*SCORE_COLUMNS, *RAW_COLUMNS]), langs=["ru"] * len(ru),
                  answered=answered)
    return store


def test_complete_files_under_a_preset_of_one_language_are_complete_with_a_labelled_mean(ru_only_2024):
    at = run_on(LEADERBOARD, "TextDetox 2024")
    local = frame_with(at, "mean_over").set_index("system")
    assert local.loc["first.tsv", "coverage"] == "all 9" and local.loc["first.tsv", "mean_over"] == "1 of 9: ru"
    assert local.loc["first.tsv", "rank"] == "1" and local.loc["second.tsv", "rank"] == "2"
    assert local.loc["two.tsv", "rank"] == "partial"  # answers 2 of 9: never ranked against the others
    info = " ".join(i.value for i in at.info)
    assert "covers Russian only" in info and "over 1 of 9 languages (ru)" in info and "not the edition's average" in info
    assert "no references for" not in " ".join(w.value for w in at.warning)  # not covered is not "no references"
    compare = run_on(COMPARE, "TextDetox 2024")
    warnings = " ".join(w.value for w in compare.warning)
    assert "first.tsv is partial" not in warnings and "second.tsv is partial" not in warnings
    assert "covers Russian only" in " ".join(i.value for i in compare.info)


def test_leaderboard_and_compare_tables_download_for_a_paper(scored):
    """CSV, LaTeX (booktabs) and Markdown beside each ranking and comparison."""
    for path, key in ((LEADERBOARD, "lb_paper_embedded_True"), (COMPARE, "cmp_paper")):
        at = run(path)
        buttons = {b.proto.label: b.proto for b in at.get("download_button")}
        assert {"CSV", "LaTeX (booktabs)", "Markdown"} <= set(buttons), (path, list(buttons))
        assert any(p.id.endswith(f"{key}_tex") or key in p.id for p in buttons.values())


@pytest.fixture
def dev_without_bertscore(tmp_path, monkeypatch):
    """TextDetox 2024 dev (references in every language) scored with BERTScore off, as a
    server does by default: chrF, BLEU and ROUGE-L in every language, BERTScore in none."""
    import numpy as np
    import pandas as pd

    from detox_core.metrics import bertscore
    from detox_core.vocab import RAW_COLUMNS, SCORE_COLUMNS

    store = fetched_textdetox2024(tmp_path, monkeypatch)
    inputs = editions.get_edition("textdetox2024").load(["dev"])
    rng = np.random.default_rng(5)
    ids = {}
    for name, level in (("first.tsv", 0.7), ("second.tsv", 0.4)):
        j = np.clip(level + rng.normal(0, 0.05, len(inputs)), 0, 1)
        scores = pd.DataFrame({"sta": j, "sim": 0.8, "fl": 0.9, "j": j, "chrf": j, "bleu": j, "rouge_l": j,
                               "bertscore": np.nan})
        for col in RAW_COLUMNS:
            scores[col] = scores[col.removesuffix("_raw")]
        scores = scores.reindex(columns=[*SCORE_COLUMNS, *RAW_COLUMNS])
        scores.attrs["signature"] = {"references": {"chrf": "chrF2", "bleu": "BLEU", "rouge_l": "ROUGE-L",
                                                    "bertscore": f"n/a: {bertscore.off_reason()}"}}
        ids[name] = store.add(name=name, sha256=f"{name}-dev", dataset="textdetox2024", split="dev",
                              preset="textdetox2024", calibrated=False, source="upload",
                              inputs=inputs["toxic_comment"].tolist(), outputs=inputs["toxic_comment"].tolist(),
                              scores=scores, langs=inputs["lang"].tolist()).id
    return store, ids


def test_bertscore_off_is_said_as_off_not_as_missing_references(dev_without_bertscore):
    """Compare and Leaderboard on a split with references, scored with BERTScore off: one
    note that it was not computed, and no "no references" for any language."""
    at = AppTest.from_file(COMPARE, default_timeout=120)
    at.query_params["dataset"] = "TextDetox 2024"
    at.query_params["splits"] = "dev"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    said = [w.value for w in at.warning] + [c.value for c in at.caption]
    assert not [s for s in said if "n/a — no references for" in s], said
    assert any(s.startswith("BERTScore: n/a for these systems") and "Metric models" in s for s in said), said
    assert "mean" in frame_with(at, "system").columns  # the comparison is drawn
    at = AppTest.from_file(LEADERBOARD, default_timeout=120)
    at.query_params["dataset"] = "TextDetox 2024"
    at.query_params["splits"] = "dev"
    at.run()
    at.segmented_control(key="lb_axis").set_value("bertscore").run()
    assert not at.exception, [e.value for e in at.exception]
    warnings = [w.value for w in at.warning]
    assert not [w for w in warnings if "no references for" in w], warnings
    assert any(w.startswith("BERTScore: n/a for these submissions") and "Metric models" in w for w in warnings), warnings
