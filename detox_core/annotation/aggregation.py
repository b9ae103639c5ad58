"""Aggregating crowd answers into labels, in the crowd-kit style.

Aggregators take their hyperparameters in the constructor; ``fit(answers)`` returns
the aggregator, with ``labels_`` (task -> label, NaN when there is none),
``confidence_`` (task -> confidence of that label) and ``votes_`` (task -> number of
answers). Quality control (control accuracy, worker filtering) and agreement
(Krippendorff's alpha) live here too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import pandas as pd

from detox_core import extras
from detox_core.errors import UnknownNameError


def same_label(a: pd.Series, b: pd.Series) -> pd.Series:
    """Element-wise equality of labels, numeric when both sides are numbers (1 == 1.0)."""
    try:
        return pd.to_numeric(a).astype(float) == pd.to_numeric(b).astype(float)
    except (ValueError, TypeError):
        return a.astype(str) == b.astype(str)


def control_accuracy(answers: pd.DataFrame) -> pd.Series:
    """Per worker, the share of control items answered with the golden label."""
    if "golden" not in answers:
        return pd.Series(dtype=float)
    ctrl = answers[answers["golden"].notna()]
    return same_label(ctrl["label"], ctrl["golden"]).groupby(ctrl["worker"]).mean()


def filter_workers(answers: pd.DataFrame, min_accuracy: float = 0.5) -> pd.DataFrame:
    """Answers of workers whose control accuracy is at least ``min_accuracy``, without the
    control items themselves. Workers who answered no control item are kept."""
    acc = control_accuracy(answers)
    bad = set(acc[acc < min_accuracy].index)
    out = answers[~answers["worker"].isin(bad)]
    if "golden" in out:
        out = out[out["golden"].isna()]
    return out


class Aggregator(Protocol):
    """What an aggregator is: ``fit(answers)`` returns itself with ``labels_``,
    ``confidence_``, ``votes_`` and ``unlabelled_`` set."""

    labels_: pd.Series
    confidence_: pd.Series

    def fit(self, answers: pd.DataFrame) -> Any: ...


@dataclass(frozen=True)
class AggregatorInfo:
    """A registered aggregation method: its key, names for people and how to build it.

    Attributes:
        name: the key stored in project settings and given to the CLI (``ds``).
        title: how pages name it (``Dawid-Skene``).
        short: a shorter name where the vote minimum is said elsewhere.
        build: ``build(min_votes)`` -> a fresh aggregator.
        votes_needed: answers an item needs for a label (0: any number), as projects build it:
            a project asking fewer annotators per item gets no label at all.
    """

    name: str
    title: str
    short: str
    build: Callable[[int], Aggregator]
    votes_needed: int = 0


#: name -> aggregation method, the default first.
AGGREGATORS: dict[str, AggregatorInfo] = {}

#: The method projects and the CLI use unless told otherwise.
DEFAULT_AGGREGATOR = "ds"
#: The votes a label needs where a method counts them (:func:`make_aggregator`'s default).
PROJECT_MIN_VOTES = 3


def register_aggregator(name: str, title: str, short: str | None = None, *, uses_min_votes: bool = False):
    """Class decorator: register an aggregator under ``name`` (its constructor gets
    ``min_votes`` when ``uses_min_votes``)."""

    def wrap(cls):
        build = (lambda min_votes: cls(min_votes=min_votes)) if uses_min_votes else (lambda min_votes: cls())
        AGGREGATORS[name] = AggregatorInfo(name, title, short or title, build,
                                           PROJECT_MIN_VOTES if uses_min_votes else 0)
        return cls

    return wrap


def aggregator_names() -> list[str]:
    """Registered methods, the default first."""
    return sorted(AGGREGATORS, key=lambda n: n != DEFAULT_AGGREGATOR)


def aggregator_title(name: str, short: bool = False) -> str:
    """How pages name method ``name``."""
    info = AGGREGATORS.get(name)
    return name if info is None else info.short if short else info.title


def describe_aggregators() -> str:
    """``ds (Dawid-Skene) or mv (majority vote)``: the methods, for messages and help."""
    parts = [f"{n} ({aggregator_title(n, short=True)})" for n in aggregator_names()]
    return ", ".join(parts[:-1]) + (" or " if len(parts) > 1 else "") + parts[-1] if parts else "none"


@register_aggregator("mv", "majority vote (≥ 3 votes)", "majority vote", uses_min_votes=True)
class MajorityVote:
    """Majority vote that needs a minimum number of votes for the winning label.

    Args:
        min_votes: the winning label needs at least this many votes and strictly more
            than any other label; otherwise the task stays unlabelled (NaN).
    """

    def __init__(self, min_votes: int = 3) -> None:
        self.min_votes = min_votes

    def fit(self, answers: pd.DataFrame) -> "MajorityVote":
        counts = answers.groupby(["task", "label"]).size().unstack(fill_value=0)
        top = counts.max(axis=1)
        winners = counts.idxmax(axis=1)
        ties = (counts.eq(top, axis=0)).sum(axis=1) > 1
        ok = (top >= self.min_votes) & ~ties
        self.votes_ = counts.sum(axis=1)
        self.labels_ = winners.where(ok)
        self.confidence_ = (top / self.votes_).where(ok)
        self.unlabelled_ = int((~ok).sum())
        return self


@register_aggregator("ds", "Dawid-Skene")
class DawidSkene:
    """Dawid-Skene (1979) via crowd-kit, with the label's posterior as confidence.

    Args:
        n_iter: EM iterations.
        tol: convergence tolerance.
    """

    def __init__(self, n_iter: int = 100, tol: float = 1e-5) -> None:
        self.n_iter = n_iter
        self.tol = tol

    def fit(self, answers: pd.DataFrame) -> "DawidSkene":
        extras.require_module("crowdkit", "Dawid-Skene aggregation")
        # Imported here: crowd-kit takes seconds to import: only its aggregators need it.
        from crowdkit.aggregation import DawidSkene as CrowdKitDS

        data = answers[["worker", "task", "label"]].copy()
        model = CrowdKitDS(n_iter=self.n_iter, tol=self.tol).fit(data)
        self.model_ = model
        self.labels_ = model.labels_
        self.confidence_ = model.probas_.max(axis=1)
        self.votes_ = data.groupby("task").size()
        self.unlabelled_ = 0
        return self


def make_aggregator(method: str, min_votes: int = PROJECT_MIN_VOTES) -> Aggregator:
    """A fresh aggregator of a registered method (``min_votes`` for those that use it).

    Raises:
        UnknownNameError: another method (a ``ValueError``), naming the registered ones.
    """
    if method not in AGGREGATORS:
        raise UnknownNameError(f"unknown method {method!r}; expected {describe_aggregators()}")
    return AGGREGATORS[method].build(min_votes)


def review_queue(confidence: pd.Series, threshold: float = 0.9) -> pd.Index:
    """Tasks whose label confidence is under ``threshold`` (or missing): for an expert."""
    return confidence.index[(confidence < threshold) | confidence.isna()]


def krippendorff_alpha(answers: pd.DataFrame, level: Literal["nominal", "ordinal", "interval"] = "nominal") -> float:
    """Krippendorff's alpha of the answers (workers x tasks, missing answers allowed)."""
    # Imported here: only the agreement figure needs it.
    import krippendorff

    labels = answers["label"]
    if level == "nominal":
        codes = {v: i for i, v in enumerate(sorted(labels.astype(str).unique()))}
        values = labels.astype(str).map(codes).astype(float)
    else:
        values = pd.to_numeric(labels, errors="raise").astype(float)
    matrix = pd.DataFrame({"worker": answers["worker"], "task": answers["task"], "v": values}).pivot_table(
        index="worker", columns="task", values="v", aggfunc="first")
    if matrix.shape[1] < 2 or matrix.notna().sum(axis=0).max() < 2 or values.nunique() < 2:
        return float("nan")  # undefined: no pair of answers to compare, or one value only
    value_domain = None
    if level == "ordinal":
        value_domain = sorted(values.unique())
    return float(krippendorff.alpha(reliability_data=matrix.to_numpy(), level_of_measurement=level,
                                    value_domain=value_domain))


def alpha_gap(answers: pd.DataFrame) -> str:
    """Why :func:`krippendorff_alpha` of ``answers`` is undefined, in words ("" when it is
    defined): α compares the answers different annotators gave to the same item, so it
    needs an item with two answers, two items, and more than one label."""
    if answers.empty:
        return "no answers yet"
    per_item = answers.groupby("task")["worker"].nunique()
    if per_item.max() < 2:
        return "each item has one answer"
    if len(per_item) < 2:
        return "only one item has answers"
    if answers["label"].astype(str).nunique() < 2:
        return "every answer is the same"
    return ""


def worker_stats(answers: pd.DataFrame, labels: pd.Series) -> pd.DataFrame:
    """Per worker: answers, control accuracy, agreement with the aggregate, median seconds."""
    acc = control_accuracy(answers)
    real = answers[answers["golden"].isna()] if "golden" in answers else answers
    agg = real["task"].map(labels)
    agree = same_label(real["label"], agg.fillna(-1)).where(agg.notna())
    out = pd.DataFrame({
        "answers": answers.groupby("worker").size(),
        "control_accuracy": acc,
        "agreement_with_aggregate": agree.groupby(real["worker"]).mean(),
    })
    if "seconds" in answers:
        out["median_seconds"] = answers.groupby("worker")["seconds"].median()
    return out.sort_index()
