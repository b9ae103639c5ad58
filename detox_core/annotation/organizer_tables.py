"""The tables of the organizer's Annotation projects page, computed without drawing: the
annotators with their statistics per task, each task's labels in summary, and the human
scores per system."""

from __future__ import annotations

import pandas as pd

from detox_core.annotation.results import system_means
from detox_core.annotation.tasks import spec

#: An annotator's status in the organizer's words.
STATUS_WORDS = {"active": "working", "training": "in training", "exam": "in the exam", "failed": "not admitted",
                "banned": "banned"}


def annotator_tables(people: pd.DataFrame, results: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The project's annotators (statuses in words) and their statistics per task, which
    also lists everyone who joined without answers yet (empty where nobody answered)."""
    per_task = [r.workers.assign(task=spec(t).title) for t, r in results.items() if len(r.workers)]
    stats = pd.concat(per_task) if per_task else pd.DataFrame()
    if len(people):
        people = people.assign(status=people["status"].map(STATUS_WORDS).fillna(people["status"]),
                               ban_reason=people["ban_reason"].fillna(""))
    if len(stats):
        stats = stats.reset_index(names="name").merge(people[["name", "status", "exam_score", "ban_reason"]],
                                                      on="name", how="left")
        # Everyone who joined, also those without answers yet (in training, not admitted).
        idle = people[~people["name"].isin(stats["name"])][["name", "status", "exam_score", "ban_reason"]]
        stats = pd.concat([stats, idle.assign(answers=0)], ignore_index=True) if len(idle) else stats
    return people, stats


def results_summary(results: dict) -> pd.DataFrame:
    """One row per task: its items, labels, agreement and the annotators left out."""
    summary = pd.DataFrame([{
        "task": spec(t).title, "items": len(r.items), "labelled": int(r.items["label"].notna().sum()),
        "unlabelled": r.unlabelled, "by expert": int((r.items["source"] == "expert").sum()), "alpha": r.alpha,
        "alpha_all": r.alpha_all,
        "left out": ", ".join(r.excluded_workers)} for t, r in results.items()])
    summary["alpha_note"] = [r.alpha_note for r in results.values()]
    return summary


def human_system_means(complete: pd.DataFrame) -> pd.DataFrame:
    """The human scores per system of the pairs with every label, with J's interval as text."""
    means = system_means(complete, intervals=True)
    means["j_interval"] = [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(means["j_human_low"], means["j_human_high"])]
    return means
