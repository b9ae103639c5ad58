"""From a project's stored answers to labels, progress figures and human judgements.

- :func:`aggregate_project`: per task, answers of banned annotators and of annotators
  under the control-accuracy filter left out, control items removed, then majority
  vote or Dawid-Skene; an expert's label replaces the aggregate (confidence 1).
- :func:`progress`: items done per task, annotators, bans, agreement, expected finish.
- :func:`humaneval_table`: one row per judged pair in the ``humaneval_textdetox_ru``
  schema (``toxic_sentence``, ``neutral_sentence``, ``participant_name``,
  ``non-toxicity``, ``content``, ``fluency``, ``J``); human FL is 1 when the output is
  judged at least as fluent as the input.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
import pandas as pd

from detox_core.annotation.aggregation import (
    alpha_gap, control_accuracy, filter_workers, krippendorff_alpha, make_aggregator, review_queue, worker_stats,
)
from detox_core.annotation.store import AnnotationStore, Project, utc_now
from detox_core.annotation.tasks import TASKS
from detox_core.stats.bootstrap import bootstrap_ci
from detox_core.vocab import HUMAN_AXES, HUMAN_SYSTEM_COLUMNS, MODEL_AXES, SYSTEM_FROM_HUMAN

ALPHA_LEVEL = {"toxicity": "nominal", "content": "nominal", "fluency": "ordinal"}


@dataclass
class TaskResult:
    """Aggregated labels of one task's real items."""

    task: str
    items: pd.DataFrame  # item, input, text, label, confidence, votes, counts ({label: n}), source (aggregate|expert|none)
    alpha: float  # Krippendorff's alpha of the answers the labels come from
    alpha_all: float  # ... of every real answer of annotators in good standing
    workers: pd.DataFrame  # per annotator statistics
    excluded_workers: list[str]
    unlabelled: int
    alpha_note: str = ""  # why alpha is undefined ("" when it is a number)

    def review(self, threshold: float) -> pd.DataFrame:
        """Items for an expert: confidence under ``threshold`` or no label, not yet reviewed."""
        todo = self.items[self.items["source"] != "expert"]
        queue = review_queue(todo.set_index("item")["confidence"], threshold)
        return todo[todo["item"].isin(queue)].sort_values("confidence", na_position="first")


def aggregate_project(store: AnnotationStore, project: Project, method: str | None = None,
                      min_accuracy: float | None = None) -> dict[str, TaskResult]:
    """Labels of every task of ``project`` (see the module docstring); the method and
    the accuracy filter default to the project's settings."""
    method = method or project.settings.method
    make_aggregator(method)  # an unknown method fails before any work
    min_accuracy = project.settings.aggregate_min_accuracy if min_accuracy is None else min_accuracy
    answers = store.answers(project.id)
    aside = set(store.disputed_controls(project.id)["item"])
    answers = answers[~answers["task"].isin(aside)]  # disputed controls measure no one's accuracy
    items = store.items(project.id, kind="real")
    out: dict[str, TaskResult] = {}
    for task in project.tasks:
        task_items = items[items["task"] == task][["item", "input", "text", "expert_label"]].copy()
        task_answers = answers[(answers["item_task"] == task) & (answers["status"] != "banned")]
        acc = control_accuracy(task_answers)
        excluded = sorted(acc[acc < min_accuracy].index)
        kept = filter_workers(task_answers, min_accuracy)
        labels = pd.Series(dtype=float)
        confidence = pd.Series(dtype=float)
        votes = pd.Series(dtype=float)
        if not kept.empty:
            agg = make_aggregator(method).fit(kept)
            labels = pd.to_numeric(agg.labels_, errors="coerce").astype(float)
            confidence, votes = agg.confidence_.astype(float), agg.votes_
        task_items["label"] = task_items["item"].map(labels)
        task_items["confidence"] = task_items["item"].map(confidence)
        task_items["votes"] = task_items["item"].map(votes).fillna(0).astype(int)
        counts = kept.groupby(["task", "label"]).size()
        per_item = {item: dict(counts.loc[item]) for item in counts.index.get_level_values(0).unique()}
        task_items["counts"] = [per_item.get(i, {}) for i in task_items["item"]]
        expert = task_items["expert_label"].notna()
        task_items["source"] = np.where(expert, "expert", np.where(task_items["label"].notna(), "aggregate", "none"))
        task_items.loc[expert, "label"] = task_items.loc[expert, "expert_label"]
        task_items.loc[expert, "confidence"] = 1.0
        alpha = krippendorff_alpha(kept, ALPHA_LEVEL[task]) if len(kept) else float("nan")
        real = task_answers[task_answers["golden"].isna()]
        alpha_all = krippendorff_alpha(real, ALPHA_LEVEL[task]) if len(real) else float("nan")
        workers = (worker_stats(task_answers, labels) if len(task_answers) else
                   pd.DataFrame(columns=["answers", "control_accuracy", "agreement_with_aggregate", "median_seconds"]))
        out[task] = TaskResult(task, task_items.drop(columns="expert_label").reset_index(drop=True), alpha, alpha_all,
                               workers, excluded, int(task_items["label"].isna().sum()),
                               alpha_gap(kept) if alpha != alpha else "")
    return out


def humaneval_table(store: AnnotationStore, project: Project, results: dict[str, TaskResult],
                    complete_only: bool = True) -> pd.DataFrame:
    """Human judgements per judged pair, in the ``humaneval_textdetox_ru`` schema.

    Axes of tasks the project does not ask are NaN; with ``complete_only`` rows are
    kept only when every asked axis has a label. A project of marked languages also has
    a ``lang`` column.
    """
    pairs = store.pairs(project.id)
    label = {task: {(r.input, r.text): r.label for r in res.items.itertuples(index=False)}
             for task, res in results.items()}
    out = pd.DataFrame({"toxic_sentence": pairs["input"], "neutral_sentence": pairs["output"],
                        "participant_name": pairs["system"], "idx": pairs["idx"]})
    if pairs["lang"].astype(bool).any():  # a multilingual project: each pair's language
        out["lang"] = pairs["lang"]
    keys_out = list(zip([""] * len(pairs), pairs["output"]))
    nan = float("nan")
    sta, sim, fl = (HUMAN_AXES[k] for k in MODEL_AXES)  # the judgement columns: non-toxicity, content, fluency
    if "toxicity" in label:
        out[sta] = [1.0 - label["toxicity"].get(k, nan) for k in keys_out]
    else:
        out[sta] = nan
    if "content" in label:
        out[sim] = [label["content"].get(k, nan) for k in zip(pairs["input"], pairs["output"])]
    else:
        out[sim] = nan
    if "fluency" in label:
        fl_in = np.array([label["fluency"].get(("", t), nan) for t in pairs["input"]], dtype=float)
        fl_out = np.array([label["fluency"].get(k, nan) for k in keys_out], dtype=float)
        out[fl] = np.where(np.isnan(fl_in) | np.isnan(fl_out), nan, (fl_out >= fl_in).astype(float))
        out["fluency_input"], out["fluency_output"] = fl_in, fl_out
    else:
        out[fl] = nan
    asked = [ax for ax, task in ((sta, "toxicity"), (sim, "content"), (fl, "fluency")) if task in project.tasks]
    out[HUMAN_AXES["j"]] = out[[sta, sim, fl]].prod(axis=1, skipna=False)
    if complete_only:
        out = out[out[asked].notna().all(axis=1)]
    return out.reset_index(drop=True)


#: Judged outputs a system needs before a project's human scores stand as that system's
#: human scores on the public Leaderboard. A per-output human J is 0-1 with a standard
#: deviation near 0.4 in the published samples, so the 95% interval of a system's mean is
#: about +-1.96 * 0.4 / sqrt(n): +-0.11 at 50 judged outputs (the gaps between neighbouring
#: teams of the RUSSE-2022 final table are 0.02-0.06, so fewer could not even order a
#: strong from a weak system), +-0.55 at 2. A pilot below it is a pilot, not a score.
MIN_JUDGED_PER_SYSTEM = 50


def system_means(table: pd.DataFrame, intervals: bool = False, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Human STA/SIM/FL/J per system of a :func:`humaneval_table`, with ``n`` (judged outputs).

    With ``intervals``, each axis also has its 95% percentile bootstrap interval over the
    system's judged outputs (``<column>_low``, ``<column>_high``).
    """
    g = table.groupby("participant_name")
    means = pd.DataFrame({**{col: g[human].mean() for col, human in SYSTEM_FROM_HUMAN.items()},
                          "n": g.size()}).reset_index()
    if intervals:
        for col, human in SYSTEM_FROM_HUMAN.items():
            bounds = {name: bootstrap_ci(group[human].to_numpy(dtype=float), n_boot, seed=seed)[1:]
                      for name, group in g}
            means[f"{col}_low"] = means["participant_name"].map(lambda name: bounds[name][0])
            means[f"{col}_high"] = means["participant_name"].map(lambda name: bounds[name][1])
    return means


@dataclass
class Progress:
    tasks: pd.DataFrame  # task, items, done, answers, slots_left, share_done
    annotators: pd.DataFrame  # status -> count
    bans: pd.DataFrame  # name, ban_reason, banned_at
    answers_per_hour: float
    expected_finish: datetime | None
    timeline: pd.DataFrame  # created_at (hour), answers
    recent_answers: int = 0  # answers in the last 24 hours (every answer, as the timeline counts)
    last_answer: datetime | None = None  # when the latest answer came


#: Answers of the last 24 hours (from annotators in good standing) an expected finish needs.
MIN_RATE_ANSWERS = 30
#: The least time a rate is measured over, in hours.
MIN_RATE_HOURS = 1.0


def progress(store: AnnotationStore, project: Project, now: datetime | None = None) -> Progress:
    """How far the project is (see the module docstring). The expected finish assumes
    the answer rate of the last 24 hours goes on."""
    answers = store.answers(project.id)
    items = store.items(project.id, kind="real")
    people = store.annotators(project.id)
    valid = answers[(answers["kind"] == "real") & (answers["status"] != "banned")]
    per_item = valid.groupby("task").size()
    overlap = project.settings.overlap
    rows = []
    for task in project.tasks:
        ids = items.loc[items["task"] == task, "item"]
        counts = ids.map(per_item).fillna(0).clip(upper=overlap)
        rows.append({"task": task, "items": len(ids), "done": int((counts >= overlap).sum()),
                     "answers": int(counts.sum()), "slots_left": int(len(ids) * overlap - counts.sum())})
    tasks = pd.DataFrame(rows)
    tasks["share_done"] = tasks["answers"] / (tasks["items"] * overlap).where(tasks["items"] > 0)
    now = now or utc_now()
    recent = valid[pd.to_datetime(valid["created_at"]) >= now - timedelta(hours=24)]
    rate = 0.0
    if len(recent) >= MIN_RATE_ANSWERS:
        # From the first recent answer until now (not until the last answer), over an hour at least:
        # one page sent in a minute is no rate of hundreds an hour, and the hourly chart agrees.
        first = pd.to_datetime(recent["created_at"]).min().to_pydatetime()
        rate = len(recent) / max((now - first).total_seconds() / 3600, MIN_RATE_HOURS)
    left = int(tasks["slots_left"].sum()) if len(tasks) else 0
    finish = now + timedelta(hours=left / rate) if rate > 0 and left > 0 else (now if left == 0 else None)
    timeline = pd.DataFrame(columns=["hour", "answers"])
    if len(answers):
        timeline = (answers.assign(hour=pd.to_datetime(answers["created_at"]).dt.floor("h"))
                    .groupby("hour").size().rename("answers").reset_index())
    status = people["status"].value_counts().rename_axis("status").reset_index(name="annotators")
    bans = people[people["status"] == "banned"][["name", "ban_reason", "banned_at"]]
    times = pd.to_datetime(answers["created_at"])
    last = times.max() if len(answers) else None
    return Progress(tasks, status, bans.reset_index(drop=True), rate, finish, timeline,
                    int((times >= now - timedelta(hours=24)).sum()), None if last is None else last.to_pydatetime())


def finish_text(prog: Progress, now: datetime | None = None) -> tuple[str, str]:
    """The expected finish as a short value (fits a narrow column) and a sentence
    saying when exactly and on what it rests. Times are UTC."""
    left = int(prog.tasks["slots_left"].sum()) if len(prog.tasks) else 0
    if not left:
        return "done", "Every item has all its answers."
    if prog.expected_finish is None:
        if prog.last_answer is None:
            return "—", "No answers yet: no rate to go by."
        if prog.recent_answers == 0:
            return "—", (f"No answers in the last 24 hours (the latest on {prog.last_answer:%d %b at %H:%M} UTC): "
                         "no recent rate to go by.")
        return "—", (f"{prog.recent_answers} answer{'' if prog.recent_answers == 1 else 's'} in the last 24 hours: "
                     f"too few for a rate (it takes {MIN_RATE_ANSWERS} from annotators in good standing).")
    now = now or utc_now()
    end = prog.expected_finish
    today = end.date() == now.date()
    value = f"{end:%H:%M}" if today else f"{end:%d %b}"
    when = f"Today at {end:%H:%M} UTC" if today else f"On {end:%d %b %Y} at {end:%H:%M} UTC"
    return value, (f"{when}, at the last 24 hours' rate: {prog.answers_per_hour:,.0f} answers per hour, "
                   f"{left:,} answers to go.")


def asks_all_tasks(project: Project) -> bool:
    """The project asks toxicity, content and fluency: its pairs get a human J."""
    return set(project.tasks) == set(TASKS)


INTERVAL_COLUMNS: tuple[str, ...] = tuple(f"{c}_{end}" for c in HUMAN_SYSTEM_COLUMNS for end in ("low", "high"))


def project_human_scores(store: AnnotationStore, public_only: bool = True) -> pd.DataFrame:
    """Human STA/SIM/FL/J per system from the projects that ask all three tasks (complete
    pairs only): ``participant_name``, ``sta_human`` ... ``j_human``, ``n`` (judged
    outputs), the 95% intervals (:data:`INTERVAL_COLUMNS`), ``project`` and ``source``.
    Later projects come first.

    Args:
        public_only: only the project an organizer chose for the public Leaderboard
            (``Settings.public_leaderboard``); False: every project (an organizer's view).
    """
    frames = []
    for project in reversed(store.projects()):
        if not asks_all_tasks(project) or (public_only and not project.settings.public_leaderboard):
            continue
        table = humaneval_table(store, project, aggregate_project(store, project))
        if len(table):
            frames.append(system_means(table, intervals=True).assign(
                project=project.name, source=f"annotation project {project.name}"))
    if not frames:
        return pd.DataFrame(columns=["participant_name", *HUMAN_SYSTEM_COLUMNS, "n", *INTERVAL_COLUMNS, "project",
                                     "source"])
    return pd.concat(frames, ignore_index=True)
