"""The annotation store: pages, overlap, quality control, concurrency, schema upgrades."""

from __future__ import annotations

import csv
import io

import threading
from datetime import datetime, timedelta

import pandas as pd
import pytest
from sqlalchemy import text

from detox_core.annotation.controls import Control
from detox_core.annotation.results import Progress, aggregate_project, finish_text, humaneval_table, progress
from detox_core.errors import AnnotationError
from detox_core.annotation.store import AnnotationStore, Settings

T0 = datetime(2026, 1, 1, 12, 0, 0)


def make_pairs(n: int, systems=("sysA", "sysB")) -> pd.DataFrame:
    rows = []
    for system in systems:
        for i in range(n):
            rows.append({"system": system, "idx": i, "input": f"toxic input {i}", "output": f"{system} output {i}"})
    return pd.DataFrame(rows)


def controls(task: str, n: int) -> list[Control]:
    return [Control(task, f"control {task} {i}", float(i % 2), input=f"ctrl input {i}" if task == "content" else "",
                    explanation="known") for i in range(n)]


def active(store: AnnotationStore, code: str, name: str) -> int:
    ann = store.join(code, name)
    return store.admit(ann.id).id


def golden_of(store: AnnotationStore, project_id: int) -> dict[int, float]:
    items = store.items(project_id)
    return dict(zip(items["item"], items["golden"]))


def test_page_mixes_controls_and_hides_answers(store):
    p = store.create_project("p", ["toxicity"], make_pairs(20), controls=controls("toxicity", 10),
                             settings=Settings(page_size=6, controls_per_page=2, min_page_seconds=0))
    a = active(store, p.access_code, "ann")
    page = store.next_page(a, "toxicity", now=T0)
    assert len(page.items) == 6
    kinds = store.items(p.id).set_index("item")["kind"]
    assert sorted(kinds[[i.id for i in page.items]]) == ["control", "control", "real", "real", "real", "real"]
    # What the annotator gets carries no kind, golden or other answers.
    assert set(vars(page.items[0])) == {"id", "task", "text", "input", "lang"}
    # The same open page comes back until it is submitted.
    assert store.next_page(a, "toxicity", now=T0).assignment_id == page.assignment_id


def test_identical_outputs_are_one_item(store):
    pairs = pd.DataFrame({"system": ["a", "b"], "idx": [0, 0], "input": ["x y z", "x y z"], "output": ["same", "same"]})
    p = store.create_project("p", ["toxicity", "content", "fluency"], pairs)
    items = store.items(p.id)
    assert items.groupby("task").size().to_dict() == {"content": 1, "fluency": 2, "toxicity": 1}


def test_overlap_and_no_repeats_sequential(store):
    p = store.create_project("p", ["content"], make_pairs(3, systems=("s",)),
                             settings=Settings(overlap=2, page_size=2, controls_per_page=0, min_page_seconds=0))
    seen: dict[int, set[int]] = {}
    for name in ("a", "b", "c"):
        ann = active(store, p.access_code, name)
        seen[ann] = set()
        while (page := store.next_page(ann, "content", now=T0)) is not None:
            store.submit_page(ann, page.assignment_id, {i.id: 1.0 for i in page.items}, now=T0 + timedelta(seconds=30))
            seen[ann] |= {i.id for i in page.items}
    answers = store.answers(p.id)
    assert answers.groupby("task").size().max() == 2
    assert len(answers) == 3 * 2
    assert not answers.duplicated(["worker", "task"]).any()


def test_concurrent_annotators(store):
    """20 threads x 50 answers through the storage layer: exactly 1,000 stored.

    Each thread has a store of its own (its own engine and connections), as separate
    server processes would: the guarantees come from the database, not from a lock
    shared in memory.
    """
    # 200 real items x overlap 5 = 1,000 slots for the 800 real answers of 100 pages of 8 real + 2 control items.
    p = store.create_project("p", ["toxicity"], make_pairs(100), controls=controls("toxicity", 40),
                             settings=Settings(overlap=5, page_size=10, controls_per_page=2, min_page_seconds=0,
                                               ban_control_accuracy=0.0))
    golden = golden_of(store, p.id)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        own = AnnotationStore(store.url)
        try:
            ann = active(own, p.access_code, f"worker-{k}")
            for _ in range(5):
                page = own.next_page(ann, "toxicity")
                assert page is not None and len(page.items) == 10
                labels = {i.id: (golden[i.id] if golden[i.id] == golden[i.id] else float(k % 2)) for i in page.items}
                own.submit_page(ann, page.assignment_id, labels)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)
        finally:
            own.engine.dispose()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    answers = store.answers(p.id)
    assert len(answers) == 1000
    real = answers[answers["kind"] == "real"]
    assert real.groupby("task").size().max() <= 5
    assert len(real) == 800
    assert not answers.duplicated(["worker", "task"]).any()
    assert answers.groupby("worker").size().eq(50).all()


def test_low_control_accuracy_bans_and_refuses_later_pages(store):
    p = store.create_project("p", ["toxicity"], make_pairs(60), controls=controls("toxicity", 30),
                             settings=Settings(page_size=5, controls_per_page=2, min_control_answers=4,
                                               min_page_seconds=0))
    golden = golden_of(store, p.id)
    ann = active(store, p.access_code, "careless")
    result = None
    for k in range(3):
        page = store.next_page(ann, "toxicity", now=T0)
        # Always the wrong answer on controls.
        labels = {i.id: (1.0 - golden[i.id] if golden[i.id] == golden[i.id] else 0.0) for i in page.items}
        result = store.submit_page(ann, page.assignment_id, labels, now=T0 + timedelta(minutes=1))
        if result.banned:
            break
    assert result.banned and "control accuracy 0%" in result.reason
    assert k == 1  # banned once 4 control answers were in
    with pytest.raises(AnnotationError, match="no longer accepted"):
        store.next_page(ann, "toxicity", now=T0)
    stored = store.answers(p.id)
    assert (stored["worker"] == "careless").sum() == 10  # earlier answers stay stored
    # ... and are left out of aggregation, and their slots are free again.
    res = aggregate_project(store, store.project(p.id), method="mv")
    assert res["toxicity"].items["votes"].sum() == 0


def test_fast_page_and_skips_ban(store):
    p = store.create_project("p", ["toxicity"], make_pairs(40),
                             settings=Settings(page_size=4, controls_per_page=0, max_skipped_pages=3))
    fast = active(store, p.access_code, "fast")
    page = store.next_page(fast, "toxicity", now=T0)
    res = store.submit_page(fast, page.assignment_id, {i.id: 0.0 for i in page.items}, now=T0 + timedelta(seconds=5))
    assert res.banned and "answered in 5 s" in res.reason

    skipper = active(store, p.access_code, "skipper")
    skipped_items = set()
    for k in range(3):
        page = store.next_page(skipper, "toxicity", now=T0)
        assert not skipped_items & {i.id for i in page.items}  # a skipped item never comes back
        skipped_items |= {i.id for i in page.items}
        res = store.skip_page(skipper, page.assignment_id, now=T0)
    assert res.banned and "3 pages skipped" in res.reason


def test_expired_page_is_refused_and_held_items_are_not_withheld(store):
    p = store.create_project("p", ["toxicity"], make_pairs(2, systems=("s",)),
                             settings=Settings(overlap=1, page_size=2, controls_per_page=0, min_page_seconds=0,
                                               page_timeout_minutes=10))
    a, b = active(store, p.access_code, "a"), active(store, p.access_code, "b")
    page = store.next_page(a, "toxicity", now=T0)
    # Nothing else left: the items a holds open are given to b too (a page held open never
    # starves the others), and the same page stays b's after a's expires.
    held = store.next_page(b, "toxicity", now=T0 + timedelta(minutes=5))
    assert {i.id for i in held.items} == {i.id for i in page.items}
    later = store.next_page(b, "toxicity", now=T0 + timedelta(minutes=11))
    assert later.assignment_id == held.assignment_id
    with pytest.raises(AnnotationError, match="expired"):
        store.submit_page(a, page.assignment_id, {i.id: 0.0 for i in page.items}, now=T0 + timedelta(minutes=12))


def test_bad_answers_are_refused_and_nothing_stored(store):
    p = store.create_project("p", ["fluency"], make_pairs(5), settings=Settings(page_size=3, controls_per_page=0))
    a = active(store, p.access_code, "a")
    page = store.next_page(a, "fluency", now=T0)
    ids = [i.id for i in page.items]
    with pytest.raises(AnnotationError, match="1 of 3 items have no answer"):
        store.submit_page(a, page.assignment_id, {ids[0]: 1.0, ids[1]: 0.5}, now=T0 + timedelta(minutes=1))
    with pytest.raises(AnnotationError, match="not an answer of the fluency task"):
        store.submit_page(a, page.assignment_id, {i: 0.7 for i in ids}, now=T0 + timedelta(minutes=1))
    assert store.answers(p.id).empty
    other = active(store, p.access_code, "b")
    with pytest.raises(AnnotationError, match="not yours"):
        store.submit_page(other, page.assignment_id, {i: 1.0 for i in ids}, now=T0 + timedelta(minutes=1))


def test_exam_admits_at_pass_mark(store):
    exam = controls("toxicity", 5)
    p = store.create_project("p", ["toxicity"], make_pairs(5), exam=exam, settings=Settings(exam_pass=0.8))
    golden = golden_of(store, p.id)
    good = store.join(p.access_code, "good")
    with pytest.raises(AnnotationError, match="training"):
        store.next_page(good.id, "toxicity")
    assert store.finish_training(good.id).status == "exam"
    page = store.exam(good.id)
    answers = {i.id: golden[i.id] for i in page.items}
    answers[page.items[0].id] = 1.0 - answers[page.items[0].id]  # one mistake of five: 80%
    result = store.submit_exam(good.id, answers)
    assert result.passed and result.score == pytest.approx(0.8) and len(result.mistakes) == 1
    assert store.annotator(good.id).status == "active"

    bad = store.join(p.access_code, "bad")
    store.finish_training(bad.id)
    page = store.exam(bad.id)
    result = store.submit_exam(bad.id, {i.id: 1.0 - golden[i.id] for i in page.items})
    assert not result.passed and store.annotator(bad.id).status == "failed"
    with pytest.raises(AnnotationError, match="did not pass"):
        store.next_page(bad.id, "toxicity")
    # Coming back under the same name does not reopen the exam.
    assert store.join(p.access_code, "bad").status == "failed"


def test_join_errors(store):
    p = store.create_project("p", ["toxicity"], make_pairs(2))
    with pytest.raises(AnnotationError, match="access code"):
        store.join("wrong", "me")
    with pytest.raises(AnnotationError, match="name"):
        store.join(p.access_code, "   ")
    with pytest.raises(AnnotationError, match="exists"):
        store.create_project("p", ["toxicity"], make_pairs(2))
    with pytest.raises(AnnotationError, match="unknown: style"):
        store.create_project("q", ["style"], make_pairs(2))


def test_export_in_humaneval_schema(store):
    pairs = pd.DataFrame({"system": ["A", "A", "B"], "idx": [0, 1, 0], "input": ["in0", "in1", "in0"],
                          "output": ["good0", "bad1", "meh0"]})
    p = store.create_project("p", ["toxicity", "content", "fluency"], pairs,
                             settings=Settings(overlap=3, page_size=20, controls_per_page=0, min_page_seconds=0))
    items = store.items(p.id).set_index("item")
    # Truth: good0 clean/same/fluent; bad1 toxic; meh0 clean, not same, less fluent than in0.
    truth = {("toxicity", "", "good0"): 0.0, ("toxicity", "", "bad1"): 1.0, ("toxicity", "", "meh0"): 0.0,
             ("content", "in0", "good0"): 1.0, ("content", "in1", "bad1"): 1.0, ("content", "in0", "meh0"): 0.0,
             ("fluency", "", "in0"): 1.0, ("fluency", "", "in1"): 0.5, ("fluency", "", "good0"): 1.0,
             ("fluency", "", "bad1"): 1.0, ("fluency", "", "meh0"): 0.5}
    for name in ("a", "b", "c"):
        ann = active(store, p.access_code, name)
        for task in p.tasks:
            page = store.next_page(ann, task, now=T0)
            labels = {i.id: truth[(items.loc[i.id, "task"], items.loc[i.id, "input"], items.loc[i.id, "text"])]
                      for i in page.items}
            store.submit_page(ann, page.assignment_id, labels, now=T0 + timedelta(minutes=1))
    project = store.project(p.id)
    results = aggregate_project(store, project, method="mv")
    table = humaneval_table(store, project, results)
    got = table.set_index("neutral_sentence")[["participant_name", "non-toxicity", "content", "fluency", "J"]]
    assert got.loc["good0"].tolist() == ["A", 1.0, 1.0, 1.0, 1.0]
    assert got.loc["bad1"].tolist() == ["A", 0.0, 1.0, 1.0, 0.0]
    assert got.loc["meh0"].tolist() == ["B", 1.0, 0.0, 0.0, 0.0]
    # An expert's label replaces the aggregate.
    tox_bad = items[(items["task"] == "toxicity") & (items["text"] == "bad1")].index[0]
    store.set_expert_label(int(tox_bad), 0.0, "organizer")
    table = humaneval_table(store, project, aggregate_project(store, project, method="mv"))
    assert table.set_index("neutral_sentence").loc["bad1", "J"] == 1.0
    prog = progress(store, project, now=T0 + timedelta(minutes=2))
    assert prog.tasks.set_index("task")["done"].to_dict() == {"toxicity": 3, "content": 3, "fluency": 5}
    assert prog.expected_finish == T0 + timedelta(minutes=2)  # nothing left
    assert finish_text(prog, now=T0)[0] == "done"


def test_expected_finish_is_short_and_says_when_exactly():
    def prog(left: int, finish, rate: float = 120.0) -> Progress:
        tasks = pd.DataFrame([{"task": "toxicity", "items": 10, "done": 2, "answers": 20, "slots_left": left}])
        return Progress(tasks, pd.DataFrame(), pd.DataFrame(), rate, finish, pd.DataFrame())

    value, note = finish_text(prog(30, T0 + timedelta(hours=3)), now=T0)
    assert value == "15:00" and note.startswith("Today at 15:00 UTC") and "120 answers per hour" in note
    value, note = finish_text(prog(500, T0 + timedelta(days=3, hours=1)), now=T0)
    assert value == "04 Jan" and "On 04 Jan 2026 at 13:00 UTC" in note and "500 answers to go" in note
    assert finish_text(prog(30, None, 0.0), now=T0)[0] == "—"
    assert all(len(finish_text(prog(5, T0 + timedelta(hours=h)), now=T0)[0]) <= 6 for h in (1, 30, 1000))


def test_older_database_upgrades_without_losing_rows(db_url):
    """A database written before items had expert labels opens with all its rows."""
    store = AnnotationStore(db_url)
    p = store.create_project("old", ["toxicity"], make_pairs(4), settings=Settings(page_size=2, controls_per_page=0,
                                                                                  min_page_seconds=0))
    a = active(store, p.access_code, "a")
    page = store.next_page(a, "toxicity", now=T0)
    store.submit_page(a, page.assignment_id, {i.id: 1.0 for i in page.items}, now=T0 + timedelta(minutes=1))
    with store.engine.begin() as conn:  # back to the older schema
        for col in ("expert_label", "expert_name", "expert_at"):
            conn.execute(text(f"ALTER TABLE ann_items DROP COLUMN {col}"))
        conn.execute(text("DROP TABLE schema_history"))
    store.engine.dispose()

    upgraded = AnnotationStore(db_url)
    assert upgraded.upgrades == ["add column ann_items.expert_label", "add column ann_items.expert_name",
                                 "add column ann_items.expert_at"]
    assert len(upgraded.answers(p.id)) == 2
    assert len(upgraded.items(p.id)) == 8
    upgraded.set_expert_label(int(upgraded.items(p.id)["item"].iloc[0]), 0.0, "expert")
    assert upgraded.items(p.id)["expert_label"].notna().sum() == 1
    assert AnnotationStore(db_url).upgrades == []


def test_export_command(tmp_path, capsys):
    from detox_core.cli import main
    from detox_core.data import load_human_judgements

    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    store = AnnotationStore(url)
    # Outputs a participant typed: a formula, a leading dash, and a text that already looks escaped.
    outputs = ["=HYPERLINK(\"http://example.com\",\"x\")", "- you are wrong", "'- as typed"]
    pairs = pd.DataFrame({"system": ["A", "B", "C"], "idx": [0, 0, 0], "input": ["in"] * 3, "output": outputs})
    p = store.create_project("cli", ["toxicity", "content", "fluency"], pairs,
                             settings=Settings(overlap=3, page_size=20, controls_per_page=0, min_page_seconds=0))
    for name in "abc":
        ann = active(store, p.access_code, name)
        for task in p.tasks:
            page = store.next_page(ann, task, now=T0)
            store.submit_page(ann, page.assignment_id, {i.id: 1.0 if task != "toxicity" else 0.0 for i in page.items},
                              now=T0 + timedelta(minutes=1))
    out = tmp_path / "human.csv"
    assert main(["export-annotations", "--project", "cli", "--db", url, "--method", "mv", "--out", str(out)]) == 0
    # The file loads as human judgements in the humaneval schema.
    frame = load_human_judgements(out)
    assert sorted(frame["participant_name"]) == ["A", "B", "C"] and (frame["J"] == 1.0).all()
    # The file is safe to open in a spreadsheet (as the page's export), and read back it is what was typed.
    cells = [c for row in csv.reader(io.StringIO(out.read_text(encoding="utf-8"))) for c in row]
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@"))]
    assert sorted(frame["neutral_sentence"]) == sorted(outputs)
    assert main(["export-annotations", "--project", "nope", "--db", url, "--out", str(out)]) == 2
    assert "no annotation project named 'nope'; the database has cli" in capsys.readouterr().err


def test_annotators_under_the_control_filter_are_left_out_of_labels_and_alpha(store):
    p = store.create_project("filter", ["content"], make_pairs(12, systems=("s",)), controls=controls("content", 12),
                             settings=Settings(overlap=4, page_size=15, controls_per_page=3, min_page_seconds=0,
                                               ban_control_accuracy=0.0))
    golden = golden_of(store, p.id)
    truth = {i: float(i % 2) for i in golden}
    for name in ("a", "b", "c", "bad"):
        ann = active(store, p.access_code, name)
        page = store.next_page(ann, "content", now=T0)
        labels = {}
        for item in page.items:
            right = golden[item.id] if golden[item.id] == golden[item.id] else truth[item.id]
            labels[item.id] = 1.0 - right if name == "bad" else right
        store.submit_page(ann, page.assignment_id, labels, now=T0 + timedelta(minutes=2))
    (res,) = aggregate_project(store, store.project(p.id), method="mv").values()
    assert res.excluded_workers == ["bad"]
    assert res.alpha == pytest.approx(1.0) and res.alpha_all < 0.5
    labels = res.items.set_index("item")["label"]
    assert all(labels[i] == truth[i] for i in labels.index)


def test_raw_answers_and_delete_project(store):
    keep = store.create_project("keep", ["toxicity"], make_pairs(2), settings=Settings(page_size=4, controls_per_page=0,
                                                                                      min_page_seconds=0))
    gone = store.create_project("gone", ["toxicity"], make_pairs(2), controls=controls("toxicity", 2),
                                settings=Settings(page_size=4, controls_per_page=1, min_page_seconds=0))
    for p in (keep, gone):
        ann = active(store, p.access_code, "a")
        page = store.next_page(ann, "toxicity", now=T0)
        store.submit_page(ann, page.assignment_id, {i.id: 1.0 for i in page.items}, now=T0 + timedelta(minutes=1))
    raw = store.raw_answers(gone.id)
    assert len(raw) == 4 and sorted(raw["kind"]) == ["control", "real", "real", "real"]
    assert set(raw.columns) >= {"annotator", "task", "input", "text", "label", "golden", "seconds"}
    store.delete_project(gone.id)
    assert [p.name for p in store.projects()] == ["keep"]
    assert len(store.answers(keep.id)) == 4 and store.raw_answers(gone.id).empty and store.items(gone.id).empty
    assert len(store.annotators(keep.id)) == 1 and store.annotators(gone.id).empty


def test_each_annotator_draws_an_exam_from_a_larger_pool(store):
    pool = controls("toxicity", 12) + controls("content", 12)
    p = store.create_project("pool", ["toxicity", "content"], make_pairs(5), exam=pool,
                             settings=Settings(exam_size=6, training=False))
    drawn = []
    for k in range(6):
        page = store.exam(store.join(p.access_code, f"ann {k}").id)
        assert len(page.items) == 6
        assert sorted(i.task for i in page.items) == ["content"] * 3 + ["toxicity"] * 3  # both tasks asked
        ann_id = int(store.annotators(p.id).set_index("name").loc[f"ann {k}", "id"])
        assert store.exam(ann_id).items == page.items  # the same exam on return
        drawn.append(frozenset(i.id for i in page.items))
    assert len(set(drawn)) > 1  # not the same items for everyone
    assert len(frozenset().union(*drawn)) > 6


def test_a_failed_or_banned_person_cannot_start_again_under_a_new_name(store):
    p = store.create_project("again", ["toxicity"], make_pairs(5), exam=controls("toxicity", 4),
                             settings=Settings(exam_pass=1.0, training=False, max_refused_per_address=1))
    golden = golden_of(store, p.id)
    first = store.join(p.access_code, "Ivan", "ivans-password", client="10.1.2.3")
    page = store.exam(first.id)
    assert not store.submit_exam(first.id, {i.id: 1.0 - golden[i.id] for i in page.items}).passed
    with pytest.raises(AnnotationError, match="earlier attempt from your connection"):
        store.join(p.access_code, "Ivan Second", "other-password", client="10.1.2.3")
    # Someone else, elsewhere, joins as usual; with no limit (the default), the same address too.
    assert store.join(p.access_code, "Olga", "olgas-password", client="10.9.9.9").status == "exam"
    open_p = store.create_project("lab", ["toxicity"], make_pairs(5), exam=controls("toxicity", 4),
                                  settings=Settings(exam_pass=1.0, training=False))
    a = store.join(open_p.access_code, "A", "password-a", client="10.1.2.3")
    store.submit_exam(a.id, {i.id: 1.0 - golden_of(store, open_p.id)[i.id] for i in store.exam(a.id).items})
    assert store.join(open_p.access_code, "B", "password-b", client="10.1.2.3").status == "exam"


def test_impersonation_without_the_password_is_refused(store):
    p = store.create_project("imp", ["toxicity"], make_pairs(5), settings=Settings(training=False))
    store.join(p.access_code, "Vera", "veras-password")
    with pytest.raises(AnnotationError, match="password does not match"):
        store.join(p.access_code, "Vera", "not-veras")
    with pytest.raises(AnnotationError, match="password does not match"):
        store.join(p.access_code, "Vera")
    assert store.join(p.access_code, "Vera", "veras-password").name == "Vera"
