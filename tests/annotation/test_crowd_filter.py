"""The MERA ruDetox crowd workflow: three exports -> labels joined to the table -> the
pairs judged non-toxic, same meaning and fluent (library and CLI)."""

from __future__ import annotations

import pandas as pd
import pytest

from detox_core import cli
from detox_core.annotation.crowd_filter import crowd_filter, read_pairs_table
from detox_core.errors import DetoxInputError

# The table as MERA's dataset.csv: a multi-line quoted prompt full of commas, inputs, outputs.
PAIRS = [
    ("ты дебил, иди отсюда", "ты неправ, иди отсюда"),  # accepted by all three
    ("этот мудак опять врёт", "этот человек  опять\nврёт"),  # accepted; the export reflows its spaces
    ("какая хрень эта новость", "какая ерунда эта новость"),  # judged toxic
    ("заткнись уже, идиот", "помолчи уже"),  # fluency: 2 good votes only (the rest from failed workers)
    ("сука как же надоело", "как же надоело"),  # judged another meaning
]
GOOD = ["w0", "w1", "w2", "w3", "w4"]
BAD = ["bad0", "bad1"]  # fail every control item
HALF = "half"  # half of the control items right: kept (left out only *under* 0.5)
CONTROLS = {"toxicity": [("ты урод", "true"), ("доброе утро", "false")],
            "content": [("ну ты и козёл", "ну ты и человек", "false"), ("иди в жопу", "уходи", "true")],
            "fluency": [("ну и погода сегодня", "fluent"), ("погода ну и и сегодня", "no")]}
WRONG = {"true": "false", "false": "true", "fluent": "no", "no": "fluent", "partly": "fluent"}


def write_table(path):
    lines = ["instruction,inputs,outputs"]
    for a, b in PAIRS:
        lines.append(f'"Токсичный текст: ""{{toxic_comment}}""\nПерефразируйте, сохраняя смысл, орфографию","{a}","{b}"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def export_text(task: str, votes: dict[tuple, list[tuple[str, str]]], extra_items=()) -> str:
    out = {"toxicity": "toxic", "content": "is_match", "fluency": "fluent"}[task]
    fields = ["toxic_comment", "neutral_comment"] if task == "content" else ["neutral_comment"]
    header = ["INPUT:idx", *[f"INPUT:{f}" for f in fields], f"OUTPUT:{out}", f"GOLDEN:{out}", "ASSIGNMENT:worker_id",
              "ASSIGNMENT:status"]
    rows, n = [], 0
    for item, answers in [*votes.items(), *extra_items]:
        for worker, answer in answers:
            n += 1  # the index differs row to row, like the platform's counters
            rows.append([str(n), *item, answer, "", worker, "APPROVED"])
    for *item, gold in CONTROLS[task]:
        for k, worker in enumerate(GOOD + BAD + [HALF]):
            wrong = worker in BAD or (worker == HALF and k % 2 == 0 and item == list(CONTROLS[task][0][:-1]))
            n += 1
            rows.append([str(n), *item, WRONG[gold] if wrong else gold, gold, worker, "APPROVED"])
    return "\n".join("\t".join(r) for r in [header, *rows]) + "\n"


def item(task: str, k: int) -> tuple:
    inp, outp = PAIRS[k]
    outp = " ".join(outp.split())  # the platform's copy: spaces reflowed
    return (inp, outp) if task == "content" else (outp,)


def votes_for(task: str) -> dict[tuple, list[tuple[str, str]]]:
    yes = {"toxicity": "false", "content": "true", "fluency": "fluent"}[task]  # the accepting answer
    no = WRONG[yes] if task != "fluency" else "partly"
    plan = {k: [(w, yes) for w in GOOD] for k in range(len(PAIRS))}
    if task == "toxicity":
        plan[2] = [(w, no) for w in GOOD[:3]] + [(w, yes) for w in GOOD[3:]]
    if task == "fluency":  # 2 good votes; 2 failed workers and 1 at exactly 0.5 would make it 5
        plan[3] = [(w, yes) for w in GOOD[:2]] + [(w, yes) for w in BAD]
    if task == "content":
        plan[4] = [(w, no) for w in GOOD]
    for k in plan:  # the failed workers vote against everything (and are left out)
        if not (task == "fluency" and k == 3):
            plan[k] = plan[k] + [(w, WRONG[yes]) for w in BAD]
    plan[0] = plan[0] + [(HALF, yes)]
    return {item(task, k): v for k, v in plan.items()}


@pytest.fixture
def files(tmp_path):
    out = {"table": write_table(tmp_path / "dataset.csv")}
    for task in ("toxicity", "content", "fluency"):
        extra = [(("текст, которого нет в таблице",), [(w, "false") for w in GOOD])] if task == "toxicity" else []
        path = tmp_path / f"{task}.tsv"
        path.write_text(export_text(task, votes_for(task), extra), encoding="utf-8")
        out[task] = path
    return out


def run(files, **kw):
    pairs = read_pairs_table(files["table"])
    return crowd_filter(pairs, {t: (files[t], None) for t in ("toxicity", "content", "fluency")}, **kw)


def test_the_accepted_pairs_are_kept(files):
    result = run(files)
    assert result.kept["input"].tolist() == [PAIRS[0][0], PAIRS[1][0]]
    assert result.kept["output"].tolist() == [PAIRS[0][1], PAIRS[1][1]]  # the table's own text
    table = result.table
    assert len(table) == len(PAIRS)
    assert table.loc[2, "toxicity"] == 1.0 and table.loc[4, "content"] == 0.0
    assert pd.isna(table.loc[3, "fluency"])  # under 3 votes once the failed workers are out
    tox = result.reports["toxicity"]
    assert tox.workers_left_out == 2 and tox.file.endswith("toxicity.tsv")
    assert tox.items == 6 and tox.labelled == 6 and tox.matched == 5
    assert tox.unmatched == ["текст, которого нет в таблице"]
    assert result.reports["fluency"].labelled == 4 and result.reports["content"].unmatched == []
    assert "2 kept" in result.summary()


def test_without_the_control_filter_the_failed_workers_count(files):
    # At accuracy 0 nobody is left out: the failed workers' votes give item 3 its majority
    # and outvote nothing else (5 good votes against 2).
    result = run(files, min_control_accuracy=0.0)
    assert result.table.loc[3, "fluency"] == 1.0
    assert result.kept["input"].tolist() == [PAIRS[0][0], PAIRS[1][0], PAIRS[3][0]]


def test_min_votes(files):
    result = run(files, min_votes=7)  # more votes than any item has (6 at most)
    assert result.kept.empty and result.table["toxicity"].isna().all()


def test_an_export_of_another_table_is_refused_with_its_name(files, tmp_path):
    other = tmp_path / "other.tsv"
    other.write_text(export_text("fluency", {("совсем другой текст",): [(w, "fluent") for w in GOOD]}),
                     encoding="utf-8")
    files["fluency"] = other
    with pytest.raises(DetoxInputError, match="matches a row of the table") as info:
        run(files)
    assert "other.tsv" in str(info.value)


def test_items_that_become_one_text_with_different_labels_are_refused(files, tmp_path):
    clash = tmp_path / "clash.tsv"
    clash.write_text(export_text("toxicity", {("ты неправ, иди отсюда",): [(w, "false") for w in GOOD],
                                              ("ты неправ,  иди отсюда",): [(w, "true") for w in GOOD]}),
                     encoding="utf-8")
    files["toxicity"] = clash
    with pytest.raises(DetoxInputError, match="same text") as info:
        run(files)
    assert "clash.tsv" in str(info.value)


def test_bad_files_are_named(files, tmp_path):
    wrong = tmp_path / "wrong.tsv"
    wrong.write_text("INPUT:text\tOUTPUT:toxic\tASSIGNMENT:worker_id\nа\tfalse\tw0\n", encoding="utf-8")
    files["toxicity"] = wrong
    with pytest.raises(DetoxInputError, match="INPUT:neutral_comment") as info:
        run(files)
    assert "wrong.tsv" in str(info.value)
    (tmp_path / "t.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(DetoxInputError, match="inputs/outputs") as info:
        read_pairs_table(tmp_path / "t.csv")
    assert "t.csv" in str(info.value)


def test_cli_crowd_filter(files, tmp_path, capsys):
    out, labels = tmp_path / "kept.csv", tmp_path / "labels.csv"
    code = cli.main(["crowd-filter", "--table", str(files["table"]), "--toxicity", str(files["toxicity"]),
                     "--content", str(files["content"]), "--fluency", str(files["fluency"]), "--no-score",
                     "--out", str(out), "--labels", str(labels)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "2 kept" in captured.out and "1 unmatched" in captured.out
    assert "toxicity.tsv: 'текст, которого нет в таблице'" in captured.err
    kept = pd.read_csv(out)
    assert kept["input"].tolist() == [PAIRS[0][0], PAIRS[1][0]]
    assert len(pd.read_csv(labels)) == len(PAIRS)
    code = cli.main(["crowd-filter", "--table", str(files["table"]), "--toxicity", str(files["fluency"]),
                     "--content", str(files["content"]), "--fluency", str(files["fluency"]), "--no-score",
                     "--out", str(out)])  # the fluency export given as the toxicity one
    err = capsys.readouterr().err
    assert code == 1 and "fluency.tsv" in err and "'fluent' is not an answer of the toxicity task" in err
