"""Controls that ban careful annotators: a ban needs evidence (an upper confidence bound on the
annotator's accuracy under the threshold, not a raw rate over six answers), and a control most
annotators in good standing answer otherwise is set aside: it bans no one and is not asked again."""

from __future__ import annotations

from datetime import datetime, timedelta

import pandas as pd
import pytest

from detox_core.annotation.controls import Control
from detox_core.annotation.quality import (
    DISPUTE_MIN_ANSWERS, accuracy_upper_bound, ban_chance, control_advice, page_ban_reason,
)
from detox_core.annotation.store import AnnotationStore, Settings

T0 = datetime(2026, 1, 1, 12, 0, 0)


def test_four_of_six_bans_no_one_and_one_of_six_does():
    """Round 6: a German annotator who passed the exam and answered carefully was banned at 4 of 6
    (two disputed generated controls). Someone right 90% of the time got 4 of 6 or fewer at the
    first check about one time in nine."""
    s = Settings()  # 70%, after 6 controls, at 95% confidence
    assert page_ban_reason(10, 60, 6, 4 / 6, s) is None
    assert page_ban_reason(10, 60, 6, 2 / 6, s) is None  # 2 of 6: still consistent with 73%
    reason = page_ban_reason(10, 60, 6, 1 / 6, s)
    assert reason and "17% over 6 control answers" in reason and "at most 58%" in reason
    assert page_ban_reason(10, 60, 30, 15 / 30, s) is not None  # random yes/no over 30 controls
    assert accuracy_upper_bound(6, 6, 0.95) == 1.0 and accuracy_upper_bound(0, 0, 0.95) == 1.0


def test_a_careful_annotator_is_almost_never_banned_and_random_answers_mostly_are():
    s = Settings()
    assert ban_chance(s, 0.9) < 0.001  # within 30 controls (the raw 70% rule: 12.7%)
    assert ban_chance(s, 0.5) > 0.7
    assert ban_chance(Settings(ban_confidence=0.5), 0.9) > 10 * ban_chance(s, 0.9)  # less evidence, more false bans
    advice = control_advice(s)
    assert "careful annotator" in advice and "0.02%" in advice and "79%" in advice


@pytest.fixture()
def project(store: AnnotationStore):
    pairs = pd.DataFrame({"system": "s", "idx": range(60), "input": [f"in {i}" for i in range(60)],
                          "output": [f"out {i}" for i in range(60)]})
    # Control 0 is the disputed one: its known answer says "toxic" (1), careful people say not (0).
    controls = [Control("toxicity", f"control {i}", 1.0 if i == 0 else 0.0) for i in range(6)]
    return store.create_project("disputed", ["toxicity"], pairs, controls=controls,
                                settings=Settings(training=False, page_size=7, controls_per_page=6, overlap=10,
                                                  min_control_answers=6, min_page_seconds=0, ban_confidence=0.5))


def answer_page(store: AnnotationStore, project, name: str, minutes: int):
    """An annotator in good standing answers every control as a careful reader would (0: not toxic)."""
    ann = store.admit(store.join(project.access_code, name, "a-long-password").id)
    page = store.next_page(ann.id, "toxicity", now=T0 + timedelta(minutes=minutes))
    result = store.submit_page(ann.id, page.assignment_id, {i.id: 0.0 for i in page.items},
                               now=T0 + timedelta(minutes=minutes + 1))
    return ann, page, result


def test_a_control_most_careful_annotators_miss_is_set_aside(store, project):
    controls = store.items(project.id, kind="control")
    disputed_id = int(controls.loc[controls["text"] == "control 0", "item"].iloc[0])
    results = [answer_page(store, project, f"careful {k}", k)[2] for k in range(DISPUTE_MIN_ANSWERS + 1)]
    # At a 50% confidence, 5 of 6 would not ban anyway; what matters is what counts.
    assert not any(r.banned for r in results)
    # Until enough people answered it, the control counted against each of them (5 of 6) ...
    assert results[0].control_answers == 6 and results[0].control_accuracy == pytest.approx(5 / 6)
    # ... once disputed, it counts for no one: the last annotator is right on all 5 that count.
    assert results[-1].control_answers == 5 and results[-1].control_accuracy == 1.0
    aside = store.disputed_controls(project.id)
    assert aside["item"].tolist() == [disputed_id] and aside["agreeing"].tolist() == [0]
    assert aside["answers"].tolist() == [DISPUTE_MIN_ANSWERS]  # not asked again once disputed
    # It is no longer put on pages.
    _ann, page, _result = answer_page(store, project, "newcomer", 30)
    assert disputed_id not in {i.id for i in page.items} and len(page.items) == 6  # one real item, 5 controls


def test_careless_annotators_cannot_retire_the_controls_that_would_stop_them(store, project):
    """Four annotators right on only 2 of 6 controls (not banned yet at 95%) miss each control in
    turn: their answers dispute nothing, as they are not right on the other controls."""
    project = store.create_project("careless", ["toxicity"], store.pairs(project.id).head(20),
                                   controls=[Control("toxicity", f"control {i}", 0.0) for i in range(6)],
                                   settings=Settings(training=False, page_size=7, controls_per_page=6, overlap=10,
                                                     min_control_answers=6, min_page_seconds=0))
    controls = store.items(project.id, kind="control").sort_values("item")
    golden = dict(zip(controls["item"], controls["golden"]))
    for k in range(DISPUTE_MIN_ANSWERS):
        ann = store.admit(store.join(project.access_code, f"careless {k}", "a-long-password").id)
        page = store.next_page(ann.id, "toxicity", now=T0 + timedelta(minutes=k))
        right = {i.id for i in page.items if i.id in golden}
        right = set(sorted(right)[:2])  # right on two controls, wrong on the other four
        answers = {i.id: (golden[i.id] if i.id in right else 1.0 - golden[i.id]) if i.id in golden else 0.0
                   for i in page.items}
        result = store.submit_page(ann.id, page.assignment_id, answers, now=T0 + timedelta(minutes=k + 1))
        assert result.control_answers == 6 and not result.banned  # 2 of 6: no evidence yet at 95%
    assert store.disputed_controls(project.id).empty


def test_a_control_answered_otherwise_by_too_few_is_not_set_aside(store, project):
    for k in range(DISPUTE_MIN_ANSWERS - 1):
        answer_page(store, project, f"careful {k}", k)
    assert store.disputed_controls(project.id).empty


def test_majority_vote_with_fewer_annotators_than_it_needs_is_refused_with_why(store):
    """Round 6: majority vote (>= 3 votes) was accepted with 2 annotators per item, then gave an
    empty result and an empty CSV without a reason."""
    from streamlit.testing.v1 import AppTest

    from detox_core.errors import AnnotationError

    with pytest.raises(AnnotationError, match="3 answers or more, and this project asks 2 annotators per item"):
        Settings(method="mv", overlap=2).validate()
    Settings(method="mv", overlap=3).validate()
    Settings(method="ds", overlap=2).validate()
    pairs = pd.DataFrame({"system": "s", "idx": [0], "input": ["in"], "output": ["out"]})
    with pytest.raises(AnnotationError, match="no item would get a label"):
        store.create_project("mv2", ["toxicity"], pairs, settings=Settings(method="mv", overlap=2))
    assert store.projects() == []

    def form():
        from detox_core.annotation.store import Settings
        from detox_core.ui.widgets.annotation import settings_form

        settings_form("t", Settings(method="mv", overlap=2))

    at = AppTest.from_function(form).run()
    assert not at.exception and any("no item would get a label" in w.value for w in at.warning)
