"""Leaderboard: the published ranking and locally scored submissions, with significance."""

from __future__ import annotations

import html

import plotly.graph_objects as go
import streamlit as st

from detox_core import data, editions, vocab
from detox_core.errors import DetoxInputError
from detox_core.analysis.leaderboard import correlation, human_vs_auto, published_key, rank_label
from detox_core.ui.auth import require_page
from detox_core.ui import render
from detox_core.ui.widgets.scores import preset_label
from detox_core.ui.sidebar import current_choice, split_picker
from detox_core.ui.store import cached_boards, cached_human_scores
from detox_core.ui.widgets.tables import MISSING

#: Rank-by choices: J first, then the other axes.
AXIS_NAMES = {"j": vocab.label("j"), **{k: v for k, v in vocab.LABELS.items() if k != "j"}}
SIGNIFICANT = 0.05


def p_value_heatmap(p) -> go.Figure:
    """Pairwise p-values: p < 0.05 dark and starred, the rest light, the diagonal empty."""
    names = [html.escape(str(n)) for n in p.index]
    values = p.to_numpy(dtype=float)
    z = [[None if i == j or v != v else float(v) for j, v in enumerate(row)] for i, row in enumerate(values)]
    text = [["" if v is None else f"{v:.3f}" + (" *" if v < SIGNIFICANT else "") for v in row] for row in z]
    fig = go.Figure(go.Heatmap(
        z=z, x=names, y=names, zmin=0, zmax=1, text=text, texttemplate="%{text}", hoverongaps=False,
        colorscale=[[0, "#1b5e20"], [SIGNIFICANT, "#66bb6a"], [SIGNIFICANT + 1e-9, "#eceff1"], [1, "#fafafa"]],
        colorbar=dict(title=dict(text="p-value"), tickvals=[SIGNIFICANT, 0.5, 1], ticktext=["0.05", "0.5", "1"]),
        hovertemplate="%{y} vs %{x}: p = %{z:.3f}<extra></extra>",
    ))
    fig.update_layout(height=140 + 40 * len(names), margin=dict(t=10, b=10), xaxis=dict(title="system", side="bottom"),
                      yaxis=dict(title="system", autorange="reversed"))
    return fig


st.title("Leaderboard")
require_page("leaderboard")
choice = current_choice()
# The chosen corpus's edition; an uploaded corpus is compared with the default one.
edition = editions.EDITIONS.get(choice.source) or editions.default_edition()
score_cfg = {
    **{a.auto_system: st.column_config.ProgressColumn(f"{a.label} (auto)" if a.key != "chrf" else a.label,
                                                      min_value=0.0, max_value=1.0, format="%.2f") for a in vocab.AXES},
    **{a.human_system: st.column_config.ProgressColumn(f"{a.label} (human)", min_value=0.0, max_value=1.0,
                                                       format="%.2f") for a in vocab.AXES if a.human},
}

st.subheader(f"{edition.short}: the published leaderboard")
published_path = edition.leaderboard_path()
published = None
if published_path is not None:
    try:
        published = data.load_leaderboard(published_path)
    except DetoxInputError as err:
        st.error(render.md(err, None))
if published is not None:
    # The columns it is sorted by come first, so that they are on screen at any width.
    st.dataframe(
        published.drop(columns=["line"]).sort_values(
            [c for c in ("j_human", "j_auto") if c in published][:1] or ["team"], ascending=False),
        hide_index=True, placeholder=MISSING,
        column_order=[c for c in ["team", "method", "j_human", "j_auto", "sta_human", "sim_human", "fl_human",
                                  "sta_auto", "sim_auto", "fl_auto", "chrf"] if c in published],
        column_config={"team": st.column_config.TextColumn("Team"), "method": st.column_config.TextColumn("Method"),
                       **score_cfg},
    )
    st.caption("Automatic scores (official GPU metrics, calibrated) and human judgements of the final ranking, as "
               f"published in the {edition.short} findings. Sorted by human J (first column after the method), then "
               "automatic J beside it; click a header to sort by another column.")
else:
    st.info("The published leaderboard is not fetched (`python -m detox_core fetch-data`).")

st.subheader("Locally scored submissions")
if not choice.ok:
    st.info(choice.problem or "No corpus loaded.")
    st.stop()
c1, c2 = st.columns([1, 1])
split = split_picker(choice, "lb_split", c1)
axis = c2.segmented_control("Rank by", list(AXIS_NAMES), default="j", required=True, key="lb_axis", wrap=True,
                            format_func=AXIS_NAMES.get, help="Bootstrap intervals and significance use this axis.")
boards = cached_boards(choice.source, split, axis or "j")
if not boards:
    st.info("Nothing scored for this test set yet: score submissions on the **Submissions** page.",
            icon=":material/info:")
    st.stop()
st.caption("Ranked within each preset only. Intervals: 95% bootstrap over sentences (1,000 resamples). Rank: the "
           "range of ranks compatible with paired bootstrap tests at p < 0.05; systems in one group are not "
           "significantly different from the group's best.")
HUMAN_COLUMNS = list(vocab.HUMAN_SYSTEM_COLUMNS)
humans = cached_human_scores(edition)
for board in boards:
    label = preset_label(board.preset, board.calibrated)
    st.markdown(f"#### {label}")
    table = board.table.merge(humans[["key", *HUMAN_COLUMNS, "source"]], on="key", how="left")
    table[HUMAN_COLUMNS] = table[HUMAN_COLUMNS].astype(float)  # numbers even when no system has human scores
    table["rank"] = [rank_label(a, b) for a, b in zip(table["rank_low"], table["rank_high"])]
    ax = axis or "j"
    table["interval"] = [f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(table[f"{ax}_low"], table[f"{ax}_high"])]
    st.dataframe(
        table[["rank", "group", "system", ax, "interval", *[c for c in AXIS_NAMES if c != ax], *HUMAN_COLUMNS,
               "source", "n"]],
        column_config={
            "rank": st.column_config.TextColumn("Rank", help="Range of ranks compatible with the significance tests"),
            "group": st.column_config.NumberColumn("Group", help="Statistically tied systems share a group"),
            "system": st.column_config.TextColumn("Submission"),
            ax: st.column_config.ProgressColumn(AXIS_NAMES[ax], min_value=0.0, max_value=1.0, format="%.3f"),
            "interval": st.column_config.TextColumn("95% CI"),
            **{c: st.column_config.NumberColumn(AXIS_NAMES[c], format="%.3f") for c in AXIS_NAMES if c != ax},
            **{c: st.column_config.NumberColumn(f"{c.split('_')[0].upper()} (human)", format="%.2f")
               for c in HUMAN_COLUMNS},
            "source": st.column_config.TextColumn(
                "Human from", help="The app's annotation projects first, then the human-evaluation sample, then the "
                "published table; — = no human judgement of this system"),
            "n": st.column_config.NumberColumn("Sentences"),
        },
        hide_index=True, placeholder=MISSING,
    )
    if len(board.table) > 1:
        st.markdown(f"**Which differences are significant** ({AXIS_NAMES[ax]})")
        st.plotly_chart(p_value_heatmap(board.ranking.p_values), width="stretch", config={"displayModeBar": False},
                        key=f"lb_p_{board.preset}_{board.calibrated}")
        st.caption(f"Each cell: the p-value of a paired bootstrap test (over sentences) that the row's and the "
                   f"column's systems have the same mean {AXIS_NAMES[ax]}. Marked * and dark: p < 0.05, a "
                   "significant difference; light: not significant. The diagonal (a system with itself) is empty.")
    pairs = human_vs_auto(board, humans)
    if len(pairs) >= 2:
        fig = go.Figure(go.Scatter(x=pairs["j_human"], y=pairs["j"], mode="markers+text",
                                   text=[html.escape(s) for s in pairs["system"]], textposition="top center",
                                   marker=dict(size=11, color="#2e7d5b"), name=f"local ({html.escape(label)})",
                                   hovertemplate="%{text}: human %{x:.2f}, auto %{y:.3f}<extra></extra>"))
        if published is not None:
            fig.add_trace(go.Scatter(x=published["j_human"], y=published["j_auto"], mode="markers+text",
                                     marker=dict(size=8, color="#bbbbbb"), name="published (official metrics)",
                                     text=[html.escape(published_key(t, m))
                                           for t, m in zip(published["team"], published["method"])],
                                     textposition="bottom center", textfont=dict(size=9, color="#999999"),
                                     hovertemplate="%{text}: human %{x:.2f}, auto %{y:.2f}<extra></extra>"))
        fig.update_layout(height=440, margin=dict(t=10, b=10), xaxis_title="human J", yaxis_title="automatic J",
                          xaxis=dict(range=[-0.02, 1.02]), yaxis=dict(range=[-0.02, 1.05]),
                          legend=dict(orientation="h", y=-0.18))
        st.plotly_chart(fig, width="stretch")
        rho = correlation(pairs["j_human"].to_numpy(), pairs["j"].to_numpy())
        st.caption(f"Human vs automatic J per system ({len(pairs)} systems with human scores"
                   + (f"; Spearman {rho:.2f}" if rho == rho else "") + ").")
