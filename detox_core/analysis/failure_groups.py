"""Failure kinds: one system's worst outputs grouped by what they say and how they changed
their input.

A system's lowest-J sentences rarely fail for one reason: some keep the insult, some drop
the meaning, some are broken text. Grouping them by meaning shows those kinds at once.
Each worst pair is described by ``[v(y), v(y) - v(x)]`` (unit embeddings of the output y
and the input x by the model of meaning): the first half is what the output says, the
second what the rewrite changed, so a copied insult and a lost meaning fall apart even
on similar topics. The pairs are grouped by Ward's agglomerative clustering, which is
deterministic (no random start), with the number of groups chosen by the silhouette
(Rousseeuw 1987) over 2..8 unless the user sets it. Worst outputs in several languages are
first moved by their language's mean vector, so that groups follow meaning, not language.

Data contract: a score frame of :meth:`detox_core.submissions.store.Store.scores`
(``idx``, ``input``, ``output``, ``sta``, ``sim``, ``fl``, ``j``; ``lang`` optional), and
vectors aligned with its rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from detox_core.models import meaning
from detox_core.errors import DetoxInputError
from detox_core.vocab import MODEL_AXES

#: The axes averaged per group: the three a preset computes and their product.
GROUP_AXES = (*MODEL_AXES, "j")
#: Candidate numbers of groups when none is set.
K_RANGE = range(2, 9)
#: Representative examples shown per group.
N_EXAMPLES = 3
#: Pairs per language that estimate its mean vector (several languages among the worst).
CENTRE_ROWS = 40
#: Below this silhouette the groups are not distinct kinds: on Rousseeuw's (1987) scale, as
#: Kaufman & Rousseeuw (1990) read it, under 0.25 is "no substantial structure" and near 0
#: is points lying between groups as much as in them. Under 0.10 the page says it found no
#: kinds of failure instead of showing groups.
NO_KINDS_SILHOUETTE = 0.10
#: A group is a kind only when it holds at least this many of the worst outputs and this
#: share of them; a grouping with fewer than two such groups (one group holding nearly all,
#: the others a stray output or two) found no kinds either.
MIN_KIND_SIZE = 3
MIN_KIND_SHARE = 0.05


def worst_outputs(scores: pd.DataFrame, n: int) -> pd.DataFrame:
    """The ``n`` rows of lowest J (fewer when the frame has fewer scored rows), lowest
    first. Ties (many outputs of J = 0) go by the lowest mean of STA, SIM and FL, then by
    input order: the worst of the zeros first, not the first ones in the file. Rows
    without a J (an unscored language) are left out.

    Raises:
        DetoxInputError: ``n`` < 1, or the frame has no ``j`` column.
    """
    if n < 1:
        raise DetoxInputError(f"the number of worst outputs must be at least 1, got {n}")
    if "j" not in scores.columns:
        raise DetoxInputError(f"a score frame needs a 'j' column; found {', '.join(map(str, scores.columns))}")
    scored = scores[scores["j"].notna()]
    axes = [a for a in MODEL_AXES if a in scored.columns]
    tie = scored[axes].mean(axis=1, skipna=True) if axes else pd.Series(0.0, index=scored.index)
    order = np.lexsort((np.arange(len(scored)), tie.fillna(np.inf).to_numpy(), scored["j"].to_numpy(float)))
    return scored.iloc[order[:int(n)]]


def pair_features(input_vectors: np.ndarray, output_vectors: np.ndarray) -> np.ndarray:
    """``[v(y), v(y) - v(x)]`` per pair, from unit vectors of the inputs and outputs.

    Raises:
        DetoxInputError: the two arrays differ in shape.
    """
    x, y = np.asarray(input_vectors, dtype=np.float64), np.asarray(output_vectors, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise DetoxInputError(f"expected input and output vectors of one shape (n, d), found {x.shape} and {y.shape}")
    return np.hstack([y, y - x])


def _cluster(features: np.ndarray, k: int) -> np.ndarray:
    # Imported here: scikit-learn takes about a second to import: only fitting and clustering need it.
    from sklearn.cluster import AgglomerativeClustering

    return AgglomerativeClustering(n_clusters=k, linkage="ward").fit_predict(features)


def choose_k(features: np.ndarray, k_range: range = K_RANGE) -> tuple[int, dict[int, float]]:
    """The number of groups with the best silhouette in ``k_range`` (the smallest on a tie),
    and the silhouette of each candidate; 1 when there are too few rows to split."""
    # Imported here: scikit-learn takes about a second to import: only fitting and clustering need it.
    from sklearn.metrics import silhouette_score

    n = len(features)
    candidates = [k for k in k_range if 2 <= k < n]
    if not candidates or len(np.unique(features, axis=0)) < 3:
        return 1, {}
    scores = {k: float(silhouette_score(features, _cluster(features, k))) for k in candidates}
    best = max(scores.values())
    return min(k for k, s in scores.items() if s == best), scores


def limiting_axis(means: pd.Series) -> str:
    """The axis of STA, SIM and FL with the lowest mean ("" when none is scored)."""
    axes = means.reindex(list(MODEL_AXES)).astype(float).dropna()
    return str(axes.idxmin()) if len(axes) else ""


@dataclass
class FailureGroups:
    """Groups of worst outputs.

    Attributes:
        groups: one row per group, largest first: ``group`` (1..k), ``size``, ``share``
            (of the worst rows), the means of :data:`GROUP_AXES`, ``limiting`` (the axis of
            lowest mean).
        members: the worst rows with ``group`` and ``distance`` (to their group's centroid).
        examples: per group, its :data:`N_EXAMPLES` members closest to the centroid.
        k: the number of groups; ``silhouettes``: each tried k's silhouette (empty when set).
        centred: the vectors were moved by their language's mean (see :func:`system_failures`).
    """

    groups: pd.DataFrame
    members: pd.DataFrame
    examples: dict[int, pd.DataFrame]
    k: int
    silhouettes: dict[int, float]
    centred: bool = False
    #: The silhouette of the groups returned (NaN for one group).
    silhouette: float = float("nan")

    def kinds(self) -> int:
        """Groups that are kinds: at least :data:`MIN_KIND_SIZE` outputs and
        :data:`MIN_KIND_SHARE` of them."""
        big = (self.groups["size"] >= MIN_KIND_SIZE) & (self.groups["share"] >= MIN_KIND_SHARE)
        return int(big.sum()) if len(self.groups) else 0

    def no_kinds_reason(self) -> str | None:
        """Why these groups are not distinct kinds of failure (None when they are): a
        silhouette under :data:`NO_KINDS_SILHOUETTE`, or fewer than two groups that are kinds."""
        if self.k < 2:
            return "the outputs do not split into groups"
        if self.silhouette == self.silhouette and self.silhouette < NO_KINDS_SILHOUETTE:
            return (f"the groups overlap (silhouette {self.silhouette:.2f}, under {NO_KINDS_SILHOUETTE:.2f}: outputs "
                    "lie between groups as much as in them)")
        if self.kinds() < 2:
            small = int(((self.groups["size"] < MIN_KIND_SIZE) | (self.groups["share"] < MIN_KIND_SHARE)).sum())
            return (f"{small} of the {self.k} groups hold only a stray output or a few (under {MIN_KIND_SIZE} "
                    f"outputs or {MIN_KIND_SHARE:.0%} of them)")
        return None


def group_failures(worst: pd.DataFrame, features: np.ndarray, k: int | None = None,
                   n_examples: int = N_EXAMPLES) -> FailureGroups:
    """Group the rows of ``worst`` by their ``features`` (one row each, e.g.
    :func:`pair_features`).

    Args:
        k: the number of groups; None chooses it by :func:`choose_k`. More groups than
            distinct rows is lowered to that number.

    Raises:
        DetoxInputError: no rows, features not aligned with the rows, ``k`` < 1.
    """
    features = np.asarray(features, dtype=np.float64)
    if not len(worst):
        raise DetoxInputError("there are no scored outputs to group")
    if features.ndim != 2 or len(features) != len(worst):
        raise DetoxInputError(f"expected one feature row per output ({len(worst)}), found shape {features.shape}")
    if k is not None and k < 1:
        raise DetoxInputError(f"the number of groups must be at least 1, got {k}")
    silhouettes: dict[int, float] = {}
    distinct = len(np.unique(features, axis=0))
    if k is None:
        k, silhouettes = choose_k(features)
    k = max(1, min(int(k), distinct))
    labels = _cluster(features, k) if k > 1 else np.zeros(len(worst), dtype=int)
    members = worst.reset_index(drop=True).copy()
    members["_label"] = labels
    centroids = {lab: features[labels == lab].mean(axis=0) for lab in np.unique(labels)}
    members["distance"] = [float(np.linalg.norm(f - centroids[lab])) for f, lab in zip(features, labels)]
    # Groups numbered by size (largest first), then by mean J: the same data give the
    # same numbers whatever labels the clustering gave.
    stats = members.groupby("_label").agg(size=("_label", "size"), j_mean=("j", "mean"))
    order = stats.sort_values(["size", "j_mean"], ascending=[False, True], kind="stable").index
    number = {lab: g for g, lab in enumerate(order, 1)}
    members["group"] = members["_label"].map(number)
    members = members.drop(columns="_label")
    rows = []
    for g, part in members.groupby("group", sort=True):
        means = part[[a for a in GROUP_AXES if a in part.columns]].mean(numeric_only=True)
        rows.append({"group": int(g), "size": len(part), "share": len(part) / len(members),
                     **{a: float(means.get(a, np.nan)) for a in GROUP_AXES}, "limiting": limiting_axis(means)})
    groups = pd.DataFrame(rows)
    examples = {int(g): part.sort_values(["distance", "j"], kind="stable").head(n_examples).reset_index(drop=True)
                for g, part in members.groupby("group", sort=True)}
    silhouette = silhouettes.get(k, float("nan"))
    if k > 1 and not silhouettes and 1 < len(np.unique(labels)) < len(labels):
        # Imported here: scikit-learn takes about a second to import: only clustering needs it.
        from sklearn.metrics import silhouette_score

        silhouette = float(silhouette_score(features, labels))
    return FailureGroups(groups, members, examples, k, silhouettes, silhouette=silhouette)


def language_offsets(langs: pd.Series, vectors: np.ndarray, sample_langs: pd.Series,
                     sample_vectors: np.ndarray) -> np.ndarray:
    """Each row's language mean (from ``sample_vectors`` of the same language), to subtract:
    multilingual embeddings carry their language as a constant offset (Libovický et al. 2020,
    "On the Language Neutrality of Pre-trained Multilingual Representations"), which would
    otherwise group the outputs by language instead of by meaning."""
    means = {lang: sample_vectors[(sample_langs == lang).to_numpy()].mean(axis=0) for lang in sample_langs.unique()}
    zero = np.zeros(vectors.shape[1])
    return np.stack([means.get(lang, zero) for lang in langs])


def system_failures(scores: pd.DataFrame, n: int, k: int | None = None, embed=None, progress=None) -> FailureGroups:
    """:func:`group_failures` of a system's ``n`` worst outputs, their inputs and outputs
    embedded by the model of meaning (``embed(texts, progress=...)``,
    :func:`detox_core.models.meaning.embed` by default; ``progress(done, total)`` while
    new texts are embedded).

    When the worst outputs are in several languages, each vector is first moved by its
    language's mean (estimated on the system's first :data:`CENTRE_ROWS` scored pairs of that
    language, inputs and outputs), so that groups follow meaning across languages; the
    result's ``centred`` says so.

    Raises:
        DetoxInputError: see :func:`worst_outputs` and :func:`group_failures`.
        MeaningUnavailableError: the model of meaning cannot run here.
    """
    worst = worst_outputs(scores, n)
    if not len(worst):
        raise DetoxInputError("this system has no scored output (no J) to group")
    if embed is None:

        embed = meaning.embed
    m = len(worst)
    texts = [*worst["input"].astype(str), *worst["output"].astype(str)]
    centre = "lang" in worst.columns and worst["lang"].nunique() > 1
    if centre:
        sample = scores[scores["j"].notna() & scores["lang"].isin(set(worst["lang"]))].groupby("lang").head(CENTRE_ROWS)
        texts += [*sample["input"].astype(str), *sample["output"].astype(str)]
    vectors = np.asarray(embed(texts, progress=progress), dtype=np.float64)
    x, y = vectors[:m], vectors[m:2 * m]
    if centre:
        both = pd.concat([sample["lang"], sample["lang"]], ignore_index=True)
        offsets = language_offsets(worst["lang"], x, both, vectors[2 * m:])
        x, y = x - offsets, y - offsets  # the same shift for both: y - x, what the rewrite changed, is kept
    result = group_failures(worst, pair_features(x, y), k)
    result.centred = centre
    return result
