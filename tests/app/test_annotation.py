"""AppTests of the annotation pages: the annotator's flow and the organizer's gate."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from detox_core.annotation.controls import Control
from detox_core.annotation.store import AnnotationStore, Settings
from detox_core.annotation.submit import page_answers
from detox_core.data import PROJECT_ROOT
from detox_core.metrics.base import RAW_COLUMNS, SCORE_COLUMNS
from detox_core.submissions.store import Store
from tests.app.helpers import annotate_pages, run

ANNOTATE = str(PROJECT_ROOT / "pages" / "annotate.py")
PROJECTS = str(PROJECT_ROOT / "pages" / "annotation_projects.py")


def pairs(n: int = 12) -> pd.DataFrame:
    return pd.DataFrame([{"system": "sys", "idx": i, "input": f"токсичный текст {i}", "output": f"вежливый текст {i}"}
                         for i in range(n)])


def controls(n: int) -> list[Control]:
    return [Control("toxicity", f"контрольный текст {i}", float(i % 2)) for i in range(n)]


@pytest.fixture
def store(tiny_data) -> AnnotationStore:
    return AnnotationStore()  # the app's database: DETOX_DB_URL of tiny_data


def join(code: str, name: str, secret: str = "secret-of-the-annotator") -> AppTest:
    at = run(AppTest.from_file(ANNOTATE, default_timeout=60))
    at.text_input(key="ann_code").input(code)
    at.text_input(key="ann_name").input(name)
    at.text_input(key="ann_secret").input(secret)
    at.button(key="FormSubmitter:ann_join-Join").click()
    return run(at)


def open_page(store: AnnotationStore, project_id: int, name: str):
    """The page the app shows this annotator (the store returns the open page again)."""
    people = store.annotators(project_id).set_index("name")
    return store.next_page(int(people.loc[name, "id"]), store.project(project_id).tasks[0])


def golden(store: AnnotationStore, project_id: int) -> dict[int, float]:
    items = store.items(project_id)
    return dict(zip(items["item"], items["golden"]))


def test_failed_exam_is_not_admitted(store):
    p = store.create_project("exam", ["toxicity"], pairs(), exam=controls(5), settings=Settings(exam_pass=0.8))
    answers = golden(store, p.id)
    at = join(p.access_code, "Anna")
    assert at.subheader[0].value.endswith("Instructions")
    # Training: answer, check, see the explanations, go on.
    for radio in at.radio:
        if radio.key.startswith("tr_"):
            radio.set_value(1.0)
    at.button(key="FormSubmitter:ann_training-Check my answers").click()
    run(at)
    assert "of 4 right" in at.info[0].value
    at.button(key="ann_to_exam").click()
    run(at)
    assert at.subheader[0].value == "Exam"
    # Two of five right: 40% < 80%.
    exam = [r for r in at.radio if r.key.startswith("ex_")]
    assert len(exam) == 5
    for k, radio in enumerate(exam):
        right = answers[int(radio.key.removeprefix("ex_"))]
        radio.set_value(right if k < 2 else 1.0 - right)
    at.button(key="FormSubmitter:ann_exam-Submit the exam").click()
    run(at)
    assert "Not admitted" in at.error[0].value and "Fewer than 80%" in at.error[0].value
    (annotator,) = store.annotators(p.id).itertuples()
    assert annotator.status == "failed"
    # Nor the score: tried again under other names with one answer changed at a time, it
    # would give the key away. (The organizer sees it.)
    page_text = " ".join(e.value for e in [*at.error, *at.markdown, *at.info, *at.caption])
    assert "40%" not in page_text and "2 of 5" not in page_text
    assert annotator.exam_score == pytest.approx(0.4)
    # No answer key: neither the expected answers nor which items were missed are shown.
    shown = " ".join(m.value for m in at.markdown)
    assert "the answer is" not in shown and "You answered" not in shown
    assert not any("контрольный текст" in m.value for m in at.markdown)
    # No work page is offered to them.
    assert not annotate_pages(at)


def test_passed_exam_opens_the_work_pages(store):
    p = store.create_project("exam2", ["toxicity"], pairs(), exam=controls(5),
                             settings=Settings(exam_pass=0.8, training=False))
    answers = golden(store, p.id)
    at = join(p.access_code, "Boris")
    for radio in at.radio:
        if radio.key.startswith("ex_"):
            radio.set_value(answers[int(radio.key.removeprefix("ex_"))])
    at.button(key="FormSubmitter:ann_exam-Submit the exam").click()
    run(at)
    assert at.success[0].value == "Admitted: you passed the exam."
    assert len(work_page(at)["items"]) > 0


def work_page(at: AppTest) -> dict:
    """What the browser receives of the work page (the component's data)."""
    (element,) = annotate_pages(at)
    return json.loads(element.proto.json)


def send(store: AnnotationStore, project_id: int, name: str, labels) -> None:
    """Submit the open page as the browser does: one message, checked, then stored."""
    page = open_page(store, project_id, name)
    message = {"page": page.assignment_id, "action": "submit", "answers": labels(page)}
    _, answers = page_answers(page, message)
    people = store.annotators(project_id).set_index("name")
    store.submit_page(int(people.loc[name, "id"]), page.assignment_id, answers)


def test_work_page_gets_texts_by_position_and_no_item_ids(store):
    p = store.create_project("keys", ["toxicity"], pairs(4),
                             settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0, training=False))
    at = join(p.access_code, "Vera")
    data = work_page(at)
    page = open_page(store, p.id, "Vera")
    assert data["page"] == page.assignment_id
    assert [item[0]["text"] for item in data["items"]] == [i.text for i in page.items]
    assert [o["key"] for o in data["options"]] == ["1", "2"]
    assert "id" not in json.dumps(data["items"]) and "golden" not in json.dumps(data)
    send(store, p.id, "Vera", lambda pg: [1.0, 0.0, 0.0, 1.0])
    stored = store.answers(p.id).set_index("task")["label"]
    assert [stored[i.id] for i in page.items] == [1.0, 0.0, 0.0, 1.0]
    at = run(at)
    assert any("So far: 4 answers on 1 page" in c.value for c in at.caption)
    assert "No toxicity items are left" in at.success[-1].value


def test_low_control_accuracy_bans(store):
    p = store.create_project("ban", ["toxicity"], pairs(20), controls=controls(10),
                             settings=Settings(page_size=5, controls_per_page=2, min_control_answers=4,
                                               min_page_seconds=0, training=False))
    answers = golden(store, p.id)
    join(p.access_code, "Dima")
    for _ in range(2):  # every control answered wrong
        send(store, p.id, "Dima", lambda pg: [1.0 - answers[i.id] if answers[i.id] == answers[i.id] else 0.0
                                              for i in pg.items])
    assert store.annotators(p.id)["status"].tolist() == ["banned"]
    assert len(store.answers(p.id)) == 10  # both pages stored; left out of the labels
    # Coming back: refused.
    again = join(p.access_code, "Dima")
    assert not annotate_pages(again)
    assert "no longer accepted" in again.error[0].value and not annotate_pages(again)


def _freeze_address_throttle(monkeypatch):
    """The throttle of whole addresses on a frozen clock, its counts forgotten."""
    from detox_core.ui.app.auth import join_guard

    address = join_guard().address
    address.forget()
    monkeypatch.setattr(address, "clock", lambda: 1000.0)


def test_a_careless_annotators_typos_slow_nobody_and_the_code_may_be_typed_in_any_case(store, monkeypatch):
    """Round 5: any join error (a short password, a refused name, a wrong case of the code)
    counted as a failure, and five locked every annotator of the address for 15 minutes."""
    from detox_core.ui.app.auth import login_throttle

    login_throttle().forget()
    monkeypatch.setattr(login_throttle(), "clock", lambda: 1000.0)
    _freeze_address_throttle(monkeypatch)
    p = store.create_project("typos", ["toxicity"], pairs(4),
                             settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0, training=False))
    for k in range(8):  # short passwords, names of nothing: said, and not counted
        assert "at least" in join(p.access_code, f"Olga{k}", "abc").error[0].value
        assert "letter or digit" in join(p.access_code, "\u0301", "long-enough-pw").error[0].value
    assert annotate_pages(join(p.access_code.upper(), "Olga", "olgas-own-password"))
    assert annotate_pages(join(f"  {p.access_code.swapcase()} ", "Ivan", "ivans-own-password"))
    login_throttle().forget()


def test_a_name_cannot_be_taken_over_without_its_password(store, monkeypatch):
    from detox_core.ui.app.auth import login_throttle

    login_throttle().forget()
    # A frozen clock: the one-second wait after a wrong password must not pass while a slow
    # machine runs the next join.
    monkeypatch.setattr(login_throttle(), "clock", lambda: 1000.0)
    _freeze_address_throttle(monkeypatch)
    p = store.create_project("own", ["toxicity"], pairs(4),
                             settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0, training=False))
    first = join(p.access_code, "Zoya", "zoyas-own-password")
    assert annotate_pages(first)
    impostor = join(p.access_code, "Zoya", "guessed-password")
    assert "password does not match" in impostor.error[0].value
    assert not annotate_pages(impostor) and "ann_id" not in impostor.session_state
    # A wrong password makes the next try from the same address wait.
    waited = join(p.access_code, "Zoya", "zoyas-own-password").error[0].value
    assert waited.startswith("Wait 1 s before the next try: tries of this name") and "Too many" not in waited
    login_throttle().forget()  # (the real annotator, from another address)
    back = join(p.access_code, " Zoya ", "zoyas-own-password")
    assert annotate_pages(back)
    assert len(store.annotators(p.id)) == 1
    login_throttle().forget()
    short = join(p.access_code, "Yan", "123")
    assert "at least 6 characters" in short.error[0].value
    login_throttle().forget()


def test_a_new_password_from_the_organizer_signs_the_open_session_out(store):
    p = store.create_project("reset", ["toxicity"], pairs(8),
                             settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0, training=False))
    at = join(p.access_code, "Ira", "iras-own-password")
    assert annotate_pages(at)
    ira = int(store.annotators(p.id).set_index("name").loc["Ira", "id"])
    new = store.set_secret(ira, actor="organizer")  # someone else had her password
    run(at)  # her next click
    assert not annotate_pages(at) and "ann_id" not in at.session_state
    assert at.text_input(key="ann_code") is not None  # the join form again
    back = join(p.access_code, "Ira", new)
    assert annotate_pages(back)  # the next page (the one she left went back to the others)


def test_organizer_page_open_without_a_password_refused_with_one(tiny_data, monkeypatch):
    # No organizer password: the open app of one's own machine, every page open.
    monkeypatch.delenv("DETOX_ORGANIZER_PASSWORD", raising=False)
    at = run(AppTest.from_file(PROJECTS, default_timeout=60))
    assert [t.label for t in at.tabs][:2] == ["Progress", "Review queue"]
    # With one, a visitor gets the sign-in form and nothing else.
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "s3cret-organizer")
    at = run(AppTest.from_file(PROJECTS, default_timeout=60))
    assert not at.tabs and [t.key for t in at.text_input] == ["organizer_password"]


def _sign_in(at: AppTest, password: str) -> AppTest:
    at.text_input(key="organizer_password").input(password)
    at.button(key="FormSubmitter:organizer_login-Sign in").click()
    return run(at)


def test_organizer_password(tiny_data, monkeypatch):
    from detox_core.ui.app.auth import login_throttle

    login_throttle().forget()
    # A clock the test moves: on a loaded machine a real second can pass between two runs of the page.
    now = [1000.0]
    monkeypatch.setattr(login_throttle(), "clock", lambda: now[0])
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "s3cret-organizer")
    at = _sign_in(run(AppTest.from_file(PROJECTS, default_timeout=60)), "wrong")
    assert at.error[0].value == "Wrong password." and not at.tabs
    # Straight after a wrong password even the right one waits (1 s after one failure).
    at = _sign_in(at, "s3cret-organizer")
    # Said as the pause it is, not as "too many" (round 6: "Too many wrong passwords" after one).
    assert at.error[0].value.startswith("Wait 1 s before the next try") and not at.tabs
    assert "Too many" not in at.error[0].value
    now[0] += 1.1
    at = _sign_in(at, "s3cret-organizer")
    assert [t.label for t in at.tabs][:3] == ["Progress", "Review queue", "Results"]


def test_organizer_password_locks_after_repeated_failures(tiny_data, monkeypatch):
    from detox_core.ui.app.auth import login_throttle

    login_throttle().forget()
    throttle = login_throttle()
    now = [1000.0]
    throttle.clock = lambda: now[0]
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "s3cret-organizer")
    at = run(AppTest.from_file(PROJECTS, default_timeout=60))
    checked = 0
    for _ in range(60):  # 60 tries in 11 s, as a script sends them: at most 5 are checked
        at = _sign_in(at, "guess")
        checked += at.error[0].value == "Wrong password."
        now[0] += 11 / 60
    assert checked <= 5
    while checked < 5:  # whoever waits out every delay reaches the fifth failure, and the lock
        now[0] += 61
        at = _sign_in(at, "guess")
        checked += at.error[0].value == "Wrong password."
    now[0] += 120  # long past any per-try delay, still inside the lockout
    at = _sign_in(at, "s3cret-organizer")
    assert "Too many wrong passwords" in at.error[0].value and not at.tabs
    now[0] += 15 * 60
    at = _sign_in(at, "s3cret-organizer")
    assert not at.error and at.tabs
    login_throttle().forget()


def _stored_submission(tiny_data, name: str, outputs: list[str]) -> None:
    store = Store()
    n = len(outputs)
    scores = pd.DataFrame({c: [0.5] * n for c in (*SCORE_COLUMNS, *RAW_COLUMNS)})
    store.add(name=name, sha256=name, dataset="russe2022", split="test", preset="embedded", calibrated=True,
              source="upload", inputs=["сука как же надоело"] * n, outputs=outputs, scores=scores)


def test_organizer_creates_a_project_from_stored_submissions(tiny_data, monkeypatch):
    _stored_submission(tiny_data, "a_test.txt", ["как же надоело"])
    _stored_submission(tiny_data, "b_test.txt", ["как же это надоело"])
    at = AppTest.from_file(PROJECTS, default_timeout=60)
    at.secrets["annotation"] = {"organizer_password": "organizer-pw-12"}
    run(at)
    at.text_input(key="organizer_password").input("organizer-pw-12")
    at.button(key="FormSubmitter:organizer_login-Sign in").click()
    run(at)
    at.text_input(key="new_name").input("pilot")
    at.number_input(key="new_n_ctrl").set_value(2)
    at.number_input(key="new_n_exam").set_value(2)
    at.button(key="new_create").click()
    run(at)
    assert "Project **pilot** created: 2 pairs, 6 control and 6 exam items" in at.success[0].value
    (project,) = AnnotationStore().projects()
    assert project.settings.overlap == 5 and project.tasks == ("toxicity", "content", "fluency")
    assert project.access_code in at.success[0].value
    # The pages of the new project render: progress, review, results.
    assert at.selectbox(key="org_project").value == project.id
    assert "Nobody joined yet" in " ".join(c.value for c in at.caption)


def _answered_project(store: AnnotationStore, systems=("alpha_test.txt", "beta_test.txt"), n: int = 6):
    """A project with all three tasks, answered by three annotators who agree on a known truth."""
    rows = [{"system": s, "idx": i, "input": f"ты дурак номер {i}", "output": f"{s[:4]} ответ номер {i}"}
            for s in systems for i in range(n)]
    p = store.create_project("judged", ["toxicity", "content", "fluency"], pd.DataFrame(rows),
                             settings=Settings(overlap=3, page_size=50, controls_per_page=0, min_page_seconds=0,
                                               training=False, method="mv"))
    items = store.items(p.id).set_index("item")
    # alpha outputs: clean, same meaning, fluent; beta: clean only on even inputs, never the same meaning.
    def truth(item) -> float:
        row = items.loc[item]
        if row["task"] == "toxicity":
            return 1.0 if row["text"].startswith("beta") and int(row["text"].split()[-1]) % 2 else 0.0
        if row["task"] == "content":
            return 1.0 if row["text"].startswith("alph") else 0.0
        return 1.0
    for name in ("a", "b", "c"):
        ann = store.join(p.access_code, name)
        for task in p.tasks:
            while (page := store.next_page(ann.id, task)) is not None:
                store.submit_page(ann.id, page.assignment_id, {i.id: truth(i.id) for i in page.items})
    return p


def test_a_pilot_project_is_not_the_public_human_score(trained):
    """Six judged outputs per system: on Human vs automatic, never as the Leaderboard's human J."""
    from detox_core.annotation.results import project_human_scores
    from detox_core.analysis.leaderboard import human_scores

    store = AnnotationStore()
    project = _answered_project(store)
    at = run(AppTest.from_file(str(PROJECT_ROOT / "pages" / "human_eval.py"), default_timeout=120))
    at.radio(key="he_source").set_value("an annotation project")
    run(at)
    assert at.selectbox(key="he_project").value == "judged"
    conf = at.dataframe[0].value
    assert int(conf.values.sum()) == 12  # every judged pair, all labels present

    # Its scores, with their counts and intervals, exist for organizers...
    every = human_scores(annotations=project_human_scores(store, public_only=False), min_judged=1).set_index("key")
    assert every.loc["alpha", "j_human"] == 1.0 and every.loc["alpha", "n"] == 6
    assert every.loc["beta", "sta_human"] == 0.5 and every.loc["beta", "j_human"] == 0.0
    assert every.loc["beta", "sta_human_low"] < 0.5 < every.loc["beta", "sta_human_high"]
    # ...but nobody chose the project for the Leaderboard: it does not feed it.
    assert project_human_scores(store).empty
    for name in ("alpha_test.txt", "beta_test.txt"):
        _stored_submission(trained, name, ["a", "b", "c"])
    board = run(AppTest.from_file(str(PROJECT_ROOT / "pages" / "leaderboard.py"), default_timeout=120))
    table = board.dataframe[-1].value.set_index("system")
    assert not table["source"].fillna("").astype(str).str.contains("annotation project").any()
    # Chosen, it is still a pilot: below the minimum, named with its counts, not shown as a score.
    store.set_public_leaderboard(project.id)
    board = run(AppTest.from_file(str(PROJECT_ROOT / "pages" / "leaderboard.py"), default_timeout=120))
    table = board.dataframe[-1].value.set_index("system")
    assert not table["source"].fillna("").astype(str).str.contains("annotation project").any()
    captions = " ".join(c.value for c in board.caption)
    assert "below the minimum of 50 judged outputs per system" in captions
    assert "alpha\\_test.txt (6 judged)" in captions or "alpha_test.txt (6 judged)" in captions


def test_the_chosen_project_feeds_the_leaderboard_with_counts_and_intervals(trained):
    store = AnnotationStore()
    project = _answered_project(store, n=50)
    for name in ("alpha_test.txt", "beta_test.txt"):
        _stored_submission(trained, name, ["a", "b", "c"])
    store.set_public_leaderboard(project.id)
    assert AnnotationStore().projects()[0].settings.public_leaderboard  # stored: every process sees it
    board = run(AppTest.from_file(str(PROJECT_ROOT / "pages" / "leaderboard.py"), default_timeout=120))
    table = board.dataframe[-1].value.set_index("system")
    assert table.loc["alpha_test.txt", "j_human"] == 1.0 and table.loc["beta_test.txt", "sta_human"] == 0.5
    assert table.loc["beta_test.txt", "source"] == "annotation project judged"
    assert table.loc["alpha_test.txt", "judged"] == 50 and table.loc["alpha_test.txt", "human_interval"] == "[1.00, 1.00]"
    assert table.loc["beta_test.txt", "human_interval"] == "[0.00, 0.00]"
    # Turned off again: back to no project.
    store.set_public_leaderboard(None)
    board = run(AppTest.from_file(str(PROJECT_ROOT / "pages" / "leaderboard.py"), default_timeout=120))
    assert "annotation project" not in " ".join(board.dataframe[-1].value["source"].fillna("").astype(str))


def test_organizer_sets_final_labels_in_the_review_queue(tiny_data, monkeypatch):
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "organizer-pw-12")
    store = AnnotationStore()
    p = store.create_project("review", ["toxicity"], pairs(2),
                             settings=Settings(overlap=3, page_size=5, controls_per_page=0, min_page_seconds=0,
                                               training=False, method="mv"))
    items = store.items(p.id).set_index("text")["item"]
    split, clear = int(items["вежливый текст 0"]), int(items["вежливый текст 1"])
    for name, vote in (("a", 1.0), ("b", 1.0), ("c", 0.0)):  # 2 vs 1 on the first item: no 3-vote majority
        ann = store.join(p.access_code, name)
        page = store.next_page(ann.id, "toxicity")
        store.submit_page(ann.id, page.assignment_id, {split: vote, clear: 0.0})
    at = run(AppTest.from_file(PROJECTS, default_timeout=60))
    at.text_input(key="organizer_password").input("organizer-pw-12")
    at.button(key="FormSubmitter:organizer_login-Sign in").click()
    run(at)
    # Only the split item waits for review; its answers are shown.
    assert [sc.key for sc in at.segmented_control if sc.key.startswith("org_expert_")] == [f"org_expert_{split}"]
    assert any("Yes, toxic 2 · No 1" in c.value for c in at.caption)
    at.segmented_control(key=f"org_expert_{split}").set_value(0.0)
    at.button(key="FormSubmitter:org_review_toxicity-Save the final labels").click()
    run(at)
    assert "Saved 1 final labels" in at.success[0].value
    assert store.items(p.id).set_index("item").loc[split, "expert_label"] == 0.0
    assert not [sc for sc in at.segmented_control if sc.key.startswith("org_expert_")]  # the queue is empty


def test_progress_lists_bans(tiny_data, monkeypatch):
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "organizer-pw-12")
    store = AnnotationStore()
    p = store.create_project("bans", ["toxicity"], pairs(10),
                             settings=Settings(page_size=2, controls_per_page=0, max_skipped_pages=2, training=False))
    ann = store.join(p.access_code, "skipper")
    for _ in range(2):
        store.skip_page(ann.id, store.next_page(ann.id, "toxicity").assignment_id)
    at = run(AppTest.from_file(PROJECTS, default_timeout=60))
    at.text_input(key="organizer_password").input("organizer-pw-12")
    at.button(key="FormSubmitter:organizer_login-Sign in").click()
    run(at)
    bans = next(d.value for d in at.dataframe if "detail" in d.value.columns and "kind" in d.value.columns)
    assert bans["name"].tolist() == ["skipper"] and "2 pages skipped" in bans["detail"].iloc[0]


def test_organizer_deletes_a_project_after_typing_its_name(tiny_data, monkeypatch):
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "organizer-pw-12")
    store = AnnotationStore()
    store.create_project("pilot run", ["toxicity"], pairs(2))
    at = run(AppTest.from_file(PROJECTS, default_timeout=60))
    at.text_input(key="organizer_password").input("organizer-pw-12")
    at.button(key="FormSubmitter:organizer_login-Sign in").click()
    run(at)
    assert at.button(key="org_delete").disabled
    at.text_input(key="org_delete_confirm").input("pilot")
    run(at)
    assert at.button(key="org_delete").disabled  # not the whole name
    at.text_input(key="org_delete_confirm").input("pilot run")
    run(at)
    at.button(key="org_delete").click()
    run(at)
    assert store.projects() == [] and "Project pilot run deleted." in at.success[0].value


def test_progress_number_and_bar_agree_and_the_finish_fits(tiny_data, monkeypatch):
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "organizer-pw-12")
    _stored_submission(tiny_data, "a_test.txt", ["как же надоело"])
    store = AnnotationStore()
    p = store.create_project("half", ["toxicity"], pairs(10),
                             settings=Settings(overlap=2, page_size=5, controls_per_page=0, min_page_seconds=0,
                                               training=False))
    for name in ("a", "b", "c"):  # 3 pages of 5: 5 items with both answers, 5 with one
        ann = store.join(p.access_code, name)
        page = store.next_page(ann.id, "toxicity")
        store.submit_page(ann.id, page.assignment_id, {i.id: 1.0 for i in page.items})
    at = run(AppTest.from_file(PROJECTS, default_timeout=60))
    at.text_input(key="organizer_password").input("organizer-pw-12")
    at.button(key="FormSubmitter:organizer_login-Sign in").click()
    run(at)
    done = next(m for m in at.metric if m.label.endswith("items done"))
    assert done.value == "5 / 10"
    bar = at.get("progress")[0].proto
    assert bar.value == 50  # the bar shows the same share as the number (5 of 10 items)
    assert "15 of 20 answers given" in " ".join(c.value for c in at.caption)
    finish = next(m for m in at.metric if m.label == "Expected finish")
    # 15 answers in a few seconds are no rate to go by (30 are needed): said, in a value that fits
    assert len(finish.value) <= 6 and "15 answers in the last 24 hours: too few for a rate" in finish.help
    # The new-project form, with a sample asked for: no two inputs share a label.
    at.radio(key="new_how").set_value("a random sample")
    run(at)
    assert at.number_input(key="new_sample").label == "Inputs in the sample"
    labels = [w.label for w in (*at.radio, *at.number_input, *at.text_input, *at.selectbox, *at.multiselect)
              if w.key and w.key.startswith("new_")]
    assert labels and len(labels) == len(set(labels)), labels


def test_organizer_chooses_the_project_that_feeds_the_leaderboard(trained, monkeypatch):
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "organizer-pw-12")
    store = AnnotationStore()
    project = _answered_project(store)
    at = AppTest.from_file(PROJECTS, default_timeout=120)
    run(at)
    at.text_input(key="organizer_password").input("organizer-pw-12")
    at.button(key="FormSubmitter:organizer_login-Sign in").click()
    run(at)
    toggle = at.toggle(key=f"org_public_{project.id}")
    assert toggle.value is False  # a pilot never feeds the public Leaderboard by default
    captions = " ".join(c.value for c in at.caption)
    assert "The Leaderboard shows no human scores of this project" in captions
    assert "Below the minimum of 50 judged pairs" in captions
    toggle.set_value(True)
    run(at)
    assert AnnotationStore().projects()[0].settings.public_leaderboard
    assert at.toggle(key=f"org_public_{project.id}").value is True
    assert "Its human scores are the Leaderboard's human columns" in " ".join(c.value for c in at.caption)


def test_wrong_passwords_and_made_up_codes_from_many_addresses_lock_nobody_else(store, tiny_data, monkeypatch):
    """30 wrong organizer passwords or 30 joins with a made-up code used to lock every
    sign-in of the server (organizer, annotators, localhost) for 5 minutes."""
    import detox_core.ui.app.auth as auth

    auth.login_throttle().forget()
    monkeypatch.setattr(auth.login_throttle(), "clock", lambda: 1000.0)
    _freeze_address_throttle(monkeypatch)
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "s3cret-organizer")
    p = store.create_project("dos", ["toxicity"], pairs(4),
                             settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0, training=False))
    address = ["198.51.100.1"]
    monkeypatch.setattr(auth, "client_id", lambda: address[0])
    at = run(AppTest.from_file(PROJECTS, default_timeout=60))
    for k in range(30):
        address[0] = f"203.0.113.{k}"
        at = _sign_in(at, "guess")
        assert at.error[0].value == "Wrong password."
        assert "no project has this access code" in join("made-up-code", f"bot{k}").error[0].value
    # The organizer from their own address, and an annotator from hers, get in at once.
    address[0] = "198.51.100.1"
    at = _sign_in(at, "s3cret-organizer")
    assert not at.error and at.tabs
    address[0] = "198.51.100.2"
    assert annotate_pages(join(p.access_code, "Zoya"))
    # The guessers' own addresses wait.
    address[0] = "203.0.113.29"
    assert "Too many failed joins from your connection" in join(p.access_code, "Olga").error[0].value
    auth.login_throttle().forget()


def test_a_forged_forwarded_for_header_does_not_change_the_address(monkeypatch):
    """The sign-in throttle and the address limit key on the address a trusted proxy saw,
    not on what the browser wrote in X-Forwarded-For."""
    import streamlit.runtime.context as context

    import detox_core.ui.app.auth as auth

    class Client:
        remote_ip = "203.0.113.7"

    class Headers:
        def __init__(self, values):
            self.values = values

        def get_all(self, name):
            return self.values if name.lower() == "x-forwarded-for" else []

    class Context:
        headers = Headers(["1.2.3.4"])

    monkeypatch.setattr(context, "_get_client_context", lambda: Client())
    monkeypatch.setattr(auth.st, "context", Context())
    assert auth.client_id() == "203.0.113.7"  # connected directly: the header is ignored
    Client.remote_ip = "127.0.0.1"  # behind nginx on the same machine
    Context.headers = Headers(["1.2.3.4, 198.51.100.9"])
    assert auth.client_id() == "198.51.100.9"


def test_an_old_name_is_not_taken_over_and_the_organizer_hands_out_a_password(store, tiny_data, monkeypatch):
    from detox_core.ui.app.auth import login_throttle

    login_throttle().forget()
    monkeypatch.setattr(login_throttle(), "clock", lambda: 1000.0)
    p = store.create_project("legacy", ["toxicity"], pairs(4),
                             settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0, training=False))
    store.join(p.access_code, "Dima", None, client="198.51.100.2")  # before passwords were asked
    taker = join(p.access_code, "Dima", "first-to-type-it")
    assert "ask the project's organizer to set a password" in taker.error[0].value
    assert "ann_id" not in taker.session_state
    at = run(AppTest.from_file(PROJECTS, default_timeout=60))
    at.selectbox(key="org_pw_pick").set_value(int(store.annotators(p.id)["id"].iloc[0]))
    next(b for b in at.button if b.label == "Set a new password").click()
    run(at)
    assert "New password of Dima" in at.success[0].value
    secret = at.code[0].value
    login_throttle().forget()
    assert annotate_pages(join(p.access_code, "Dima", secret))
    login_throttle().forget()


def test_a_page_message_nested_100000_deep_is_refused_with_a_message(store, monkeypatch):
    """Streamlit decodes the component's message while the page draws it: a forged one
    nested 100,000 deep raised RecursionError there, shown as a traceback."""
    from streamlit.components.v2.bidi_component.serialization import deserialize_trigger_list

    import detox_core.ui.annotate.page as widget

    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RecursionError):
        deserialize_trigger_list(deep)  # the decoding a forged message reaches

    def component(*_args, **_kwargs):
        return deserialize_trigger_list(deep)

    p = store.create_project("deep", ["toxicity"], pairs(4),
                             settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0, training=False))
    monkeypatch.setattr(widget, "_COMPONENT", component)
    at = join(p.access_code, "Vera")
    assert not at.exception
    assert "could not be read, so nothing was saved" in at.error[0].value
    assert store.answers(p.id).empty


def test_unforeseen_errors_show_their_type_only():
    """No server path, SQL or address in an error the app did not foresee."""
    import tomllib

    config = tomllib.loads((PROJECT_ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] in ("type", "none")


def test_progress_lists_the_disputed_controls_and_the_settings_say_what_the_ban_rule_means(tiny_data, monkeypatch):
    """A control that most annotators in good standing answer otherwise is listed under Progress,
    with its text, its known answer and how many gave it; the settings form says how likely a
    careful annotator is to be banned."""
    from detox_core.annotation.quality import DISPUTE_MIN_ANSWERS

    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "organizer-pw-12")
    store = AnnotationStore()
    ctrl = [Control("toxicity", "bei einer Sekte von freiwillig zu sprechen ist mutig", 1.0),
            *[Control("toxicity", f"ein ruhiger Satz {k}", 0.0) for k in range(3)]]
    p = store.create_project("disputed", ["toxicity"], pairs(12), controls=ctrl,
                             settings=Settings(page_size=5, controls_per_page=4, min_page_seconds=0, training=False))
    for k in range(DISPUTE_MIN_ANSWERS):
        ann = store.admit(store.join(p.access_code, f"careful {k}", "a-long-password").id)
        page = store.next_page(ann.id, "toxicity")
        store.submit_page(ann.id, page.assignment_id, {i.id: 0.0 for i in page.items})
    at = _sign_in(run(AppTest.from_file(PROJECTS, default_timeout=60)), "organizer-pw-12")
    assert any(m.value == "**Disputed controls**" for m in at.markdown)
    table = next(d.value for d in at.dataframe if "known" in d.value.columns)
    assert table["text"].tolist() == ["bei einer Sekte von freiwillig zu sprechen ist mutig"]
    assert table["agreeing"].tolist() == [0.0] and table["answers"].tolist() == [DISPUTE_MIN_ANSWERS]
    assert table["known"].iloc[0].lower().startswith("yes")
    shown = " ".join(c.value for c in at.caption)
    assert "**Controls:**" in shown and "careful annotator" in shown


def test_a_signed_in_annotator_sees_no_data_model_or_llm_sidebar(store):
    """Annotate in the app: the join form beside the shared sidebar; once signed in, the
    annotator's sidebar has none of the other pages' data, model or LLM settings."""
    project = store.create_project("sidebar", ["toxicity"], pairs(), settings=Settings(training=False, exam_size=0))
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/annotate.py").run()
    assert not at.exception and at.sidebar.selectbox(key="dataset").value == "RUSSE-2022"
    assert at.text_input(key="ann_code") and [w for w in at.text_input if w.key == "llmj_model"]
    at.session_state["ann_id"] = store.join(project.access_code, "Ida", "secret-of-the-annotator").id  # signed in
    at.switch_page("pages/annotate.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert annotate_pages(at), "the annotator's page is drawn"
    keys = {w.key for w in [*at.sidebar.selectbox, *at.text_input, *at.sidebar.toggle]}
    assert "dataset" not in keys and not any(k.startswith(("model_dir::", "llmj_", "bertscore")) for k in keys), keys
    at.session_state["ann_id"] = None  # the other pages keep their sidebar
    at.switch_page("pages/corpus.py").run()
    assert at.sidebar.selectbox(key="dataset").value == "RUSSE-2022"
