"""Compare page: "Failure kinds", one system's worst outputs grouped by meaning
(:mod:`detox_core.analysis.failure_groups`)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from detox_core.analysis.failure_groups import GROUP_AXES, K_RANGE, N_EXAMPLES, system_failures
from detox_core.models import meaning
from detox_core.errors import DetoxInputError
from detox_core.lru import ByteLRU, approx_bytes
from detox_core.ui.app import render
from detox_core.ui.app.params import clamp_value, keep_options
from detox_core.ui.widgets.tables import MISSING
from detox_core.vocab import LABELS

#: The worst outputs grouped by default, and at most (Ward's clustering and the silhouettes
#: grow with the square of it).
DEFAULT_WORST = 60
MAX_WORST = 1000
#: Results kept per (system's scores, n, k): a rerun of the page draws them again without
#: clustering again.
_RESULTS: ByteLRU = ByteLRU(16 * 1024 * 1024, lambda key, value: approx_bytes(value.members) * 3 + 4096)
AUTO = "auto"
#: A silhouette below this (Kaufman & Rousseeuw's "no substantial structure") is said to be
#: weak; below :data:`~detox_core.analysis.failure_groups.NO_KINDS_SILHOUETTE` the page says
#: it found no kinds.
WEAK_SILHOUETTE = 0.25
#: The worst outputs listed when the grouping found no kinds.
N_LISTED = 10
#: Characters of an input or output shown (the test sets' longest are a few hundred).
MAX_TEXT_SHOWN = 2000
#: Tables show J before the axes it multiplies.
ORDER = ("j", *(a for a in GROUP_AXES if a != "j"))


def _axis_columns(width: str = "small") -> dict:
    return {a: st.column_config.ProgressColumn(LABELS[a], min_value=0.0, max_value=1.0, format="%.2f", width=width,
                                               help=f"Mean {LABELS[a]} of the group")
            for a in GROUP_AXES}


def failure_kinds_section(frames: Mapping[str, pd.DataFrame], by_language: bool = False) -> None:
    """The section: a system of ``frames`` (name -> its score frame), how many of its worst
    outputs and how many groups; then each group's size, means, limiting axis and the
    outputs closest to its centre."""
    box = st.expander("Failure kinds: a system's worst outputs grouped by meaning", key="cmp_fail_open",
                      on_change="rerun", icon=":material/category:")
    if box.open is not True:
        return
    with box:
        _section(frames, by_language)


def _cached(name: str, scores: pd.DataFrame, n: int, k, progress):
    cols = [c for c in ("input", "output", "lang", *GROUP_AXES) if c in scores]
    digest = int(pd.util.hash_pandas_object(scores[cols], index=True).sum())
    key = (name, digest, n, k, meaning.NAMESPACE)
    return _RESULTS.get_or_compute(key, lambda: system_failures(scores, n, None if k == AUTO else int(k),
                                                                progress=progress))


def _section(frames: Mapping[str, pd.DataFrame], by_language: bool) -> None:
    st.caption("One system's lowest-J outputs, grouped by meaning: each pair is embedded by multilingual-e5-small as "
               "what the output says and what the rewrite changed, and grouped by Ward's clustering (deterministic; "
               "the number of groups by the best silhouette over 2-8 unless you set it).")
    reason = meaning.unavailable_reason()
    if reason is not None:
        st.info(f"Grouping by meaning is not available here: {render.md(reason, None)}", icon=":material/info:")
        return
    names = list(frames)
    row = st.container(horizontal=True, wrap=True, gap="small", vertical_alignment="bottom")
    keep_options("cmp_fail_system", names)
    name = row.selectbox("System", names, key="cmp_fail_system", width=280)
    scores = frames[name]
    scored = int(scores["j"].notna().sum())
    if not scored:
        st.info(f"{render.md(name)} has no J to rank its outputs by.", icon=":material/info:")
        return
    most = min(scored, MAX_WORST)
    clamp_value("cmp_fail_n", 1, most)
    n = int(row.number_input("Worst outputs", 1, most, min(DEFAULT_WORST, most), step=10, key="cmp_fail_n",
                             width=160, help=f"The outputs of lowest J grouped (of {scored:,} scored; at most "
                                             f"{MAX_WORST:,})."))
    k_options = [AUTO, *K_RANGE]
    keep_options("cmp_fail_k", k_options)
    k = row.selectbox("Groups", k_options, key="cmp_fail_k", width=120,
                      help="How many groups: auto picks the best silhouette over 2-8.")
    bar = st.progress(0.0, text="Embedding the worst pairs…")

    def progress(done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"Embedding the worst pairs: {done:,} of {total:,}")

    try:
        result = _cached(name, scores, n, k, progress)
    except (DetoxInputError, meaning.MeaningUnavailableError) as err:
        st.warning(render.md(err, None), icon=":material/warning:")
        return
    finally:
        bar.empty()
    worst_j = float(result.members["j"].max())
    tied = int((scores["j"] <= worst_j).sum())
    ties = (f" ({tied:,} outputs have J ≤ {worst_j:.2f}: among equal J, the lowest mean of STA, SIM and FL first)"
            if tied > len(result.members) else "")
    why = result.no_kinds_reason()
    if why is not None:
        chosen = ("no distinct kinds" + (f" (the best silhouette over 2-8 groups: {result.silhouette:.2f})"
                                         if result.silhouettes and result.silhouette == result.silhouette else ""))
    elif result.silhouettes:
        silhouette = result.silhouettes[result.k]
        chosen = (f"{result.k} groups by the best silhouette ({silhouette:.2f}"
                  + ("; weak: the groups overlap, read them as tendencies)" if silhouette < WEAK_SILHOUETTE else ")"))
    else:
        chosen = f"{result.k} group{'s' if result.k > 1 else ''}"
    st.caption(f"The {len(result.members):,} worst of {scored:,} scored outputs ({len(result.members) / scored:.0%}), "
               f"J at most {worst_j:.2f}{ties}: {chosen}."
               + ("" if why else " Limiting axis: the group's lowest mean of STA, SIM and FL.")
               + (" Each language's mean vector is taken out first, so that the groups follow meaning across "
                  "languages rather than the language." if result.centred else ""))
    if why is not None:
        st.info(f"**No distinct kinds of failure** among these {len(result.members):,} worst outputs: {why}. "
                "Grouped, they would only split one mixed set; the worst of them are listed below instead. Fewer or "
                "more worst outputs may show kinds.", icon=":material/info:")
        worst = result.members.sort_values(["j", "distance"], kind="stable").head(N_LISTED)
        _text_table(worst, by_language)
        st.caption(f"The {len(worst)} lowest-J outputs of the {len(result.members):,} grouped, with their inputs.")
        return
    groups = result.groups.assign(limiting=result.groups["limiting"].map(lambda a: LABELS.get(a, MISSING)),
                                  share=result.groups["share"] * 100)
    # The limiting axis and J first: what a narrow window shows without scrolling the table.
    st.dataframe(groups[["group", "size", "share", "limiting", *ORDER]], hide_index=True, placeholder=MISSING,
                 key="cmp_fail_groups", column_config={
                     "group": st.column_config.NumberColumn("Group", width="small"),
                     "size": st.column_config.NumberColumn("Outputs", width="small"),
                     "share": st.column_config.NumberColumn("Share", format="%.0f%%", width="small",
                                                            help="Share of the worst outputs"),
                     **_axis_columns(),
                     "limiting": st.column_config.TextColumn("Limit", width="small",
                                                             help="The limiting axis: the one of lowest mean, "
                                                                  "what pulls J down most"),
                 })
    for group in result.groups.itertuples():
        limiting = LABELS.get(group.limiting, MISSING)
        st.markdown(f"**Group {group.group}** · {group.size:,} outputs · mean J {group.j:.2f} · limited by "
                    f"**{limiting}**")
        _text_table(result.examples[group.group], by_language)
    st.caption(f"Under each group, its {N_EXAMPLES} outputs closest to the group's centre (all of a smaller group): "
               "the most typical of it.")


def _text_table(rows: pd.DataFrame, by_language: bool) -> None:
    """Outputs with their inputs, whole: a static table whose text cells wrap at any width
    (a data grid cuts them), each text shown literally (:func:`render.md`)."""
    cols = [*(["lang"] if by_language and "lang" in rows else []), "input", "output", *ORDER]
    shown = pd.DataFrame({
        **({"Lang": rows["lang"].astype(str).map(render.md)} if "lang" in cols else {}),
        "Input": rows["input"].map(lambda t: render.md(t, MAX_TEXT_SHOWN)),
        "Output": rows["output"].map(lambda t: render.md(t, MAX_TEXT_SHOWN)),
        **{LABELS[a]: rows[a].map(lambda v: MISSING if pd.isna(v) else f"{v:.2f}") for a in ORDER if a in rows},
    })
    st.table(shown, hide_index=True)
