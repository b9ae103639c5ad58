"""Leaderboard: the published leaderboard of an edition and the locally scored submissions
ranked within each preset, with their significance and human scores (a multilingual
edition's: :mod:`detox_core.ui.leaderboard.languages`)."""

from __future__ import annotations


import plotly.graph_objects as go
import streamlit as st

from detox_core import data, vocab
from detox_core.analysis.export import signature_caption, with_interval
from detox_core.analysis.leaderboard import correlation, human_vs_auto, published_key, rank_label
from detox_core.errors import DetoxInputError
from detox_core.ui.app import render
from detox_core.ui.widgets.preset_agreement import agreement_note
from detox_core.ui.leaderboard.human_scores import board_signature
from detox_core.ui.widgets.scores import preset_label
from detox_core.ui.widgets.tables import MISSING, paper_downloads

#: Rank-by choices: J first, then the other axes.
AXIS_NAMES = {"j": vocab.label("j"), **{k: v for k, v in vocab.LABELS.items() if k != "j"}}
SIGNIFICANT = 0.05


def p_value_heatmap(p) -> go.Figure:
    """Pairwise p-values: p < 0.05 dark and starred, the rest light, the diagonal empty."""
    names = [render.plot_text(str(n)) for n in p.index]
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


HUMAN_COLUMNS = list(vocab.HUMAN_SYSTEM_COLUMNS)


def published_leaderboard(edition, official):
    """The edition's published leaderboard (automatic and human scores of the final
    ranking), or a word that it is not fetched; returns it (None when there is none).
    ``official``: the edition's official system-level chrF
    (:func:`detox_core.analysis.leaderboard.official_chrf`)."""
    score_cfg = {
        **{a.auto_system: st.column_config.ProgressColumn(
            f"{a.label} (auto)" if a.key not in vocab.REFERENCE_METRIC_COLUMNS else a.label, help=vocab.axis_help(a.key),
            min_value=0.0, max_value=1.0, format="%.2f") for a in vocab.AXES},
        # The published table's chrF is what the edition's official script computes.
        **({"chrf": st.column_config.ProgressColumn(official[0], help=official[1].help, min_value=0.0, max_value=1.0,
                                                    format="%.2f")} if official else {}),
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
                                      "sta_auto", "sim_auto", "fl_auto", *vocab.REFERENCE_METRIC_COLUMNS] if c in published],
            column_config={"team": st.column_config.TextColumn("Team"), "method": st.column_config.TextColumn("Method"),
                           **score_cfg},
        )
        st.caption("Automatic scores (official GPU metrics, calibrated) and human judgements of the final ranking, as "
                   f"published in the {edition.short} findings. Sorted by human J (first column after the method), then "
                   "automatic J beside it; click a header to sort by another column.")
    else:
        st.info("The published leaderboard is not fetched (`python -m detox_core fetch-data`).")
    return published


def local_board(board, humans, published, official, edition, choice, split: str, axis: str | None) -> None:
    """One preset's ranking of the local submissions, ranked by ``axis``: the table with
    human scores beside, its downloads, the significance of its differences and human vs
    automatic J per system (the ``published`` leaderboard's systems in grey)."""
    label = preset_label(board.preset, board.calibrated)
    st.markdown(f"#### {label}")
    agreement_note(board.preset, board.calibrated, choice.languages, key=f"lb_agr_{board.preset}_{board.calibrated}")
    table = board.table.merge(humans[["key", *HUMAN_COLUMNS, "n", "j_human_low", "j_human_high", "source"]]
                              .rename(columns={"n": "judged"}), on="key", how="left")
    table[HUMAN_COLUMNS] = table[HUMAN_COLUMNS].astype(float)  # numbers even when no system has human scores
    table["human_interval"] = [f"[{lo:.2f}, {hi:.2f}]" if lo == lo else MISSING
                               for lo, hi in zip(table["j_human_low"].astype(float), table["j_human_high"].astype(float))]
    table["rank"] = [rank_label(a, b) for a, b in zip(table["rank_low"], table["rank_high"])]
    ax = axis or "j"
    table["interval"] = [f"[{lo:.3f}, {hi:.3f}]" if lo == lo else MISSING
                         for lo, hi in zip(table[f"{ax}_low"], table[f"{ax}_high"])]
    unranked = table[ax].isna()  # n/a on this axis (BERTScore off, no references): not ranked on it
    if unranked.any():
        table.loc[unranked, "rank"] = MISSING
        table["group"] = table["group"].astype(float).where(~unranked)
        st.caption(f"{AXIS_NAMES[ax]} is n/a for {int(unranked.sum())} of {len(table)} submission(s) here "
                   "(not computed, or no references): they are not ranked on it.")
    others = [c for c in AXIS_NAMES if c != ax]
    if "chrf_official" in table:  # the edition's official chrF beside the sentence chrF
        others.insert(others.index("chrf") + 1 if "chrf" in others else len(others), "chrf_official")
    st.dataframe(
        table[["rank", "group", "system", ax, "interval", *others, *HUMAN_COLUMNS, "human_interval", "judged",
               "source", "n"]],
        column_config={
            "rank": st.column_config.TextColumn("Rank", help="Range of ranks compatible with the significance tests"),
            "group": st.column_config.NumberColumn("Group", help="Statistically tied systems share a group"),
            "system": st.column_config.TextColumn("Submission"),
            ax: st.column_config.ProgressColumn(AXIS_NAMES[ax], min_value=0.0, max_value=1.0, format="%.3f"),
            "interval": st.column_config.TextColumn("95% CI"),
            **{c: st.column_config.NumberColumn(AXIS_NAMES[c], format="%.3f", help=vocab.axis_help(c))
               for c in AXIS_NAMES if c != ax},
            **({"chrf_official": st.column_config.NumberColumn(official[0], format="%.3f", help=official[1].help)}
               if official else {}),
            **{c: st.column_config.NumberColumn(f"{c.split('_')[0].upper()} (human)", format="%.2f")
               for c in HUMAN_COLUMNS},
            "human_interval": st.column_config.TextColumn(
                "J (human) 95% CI", help="Bootstrap over the system's judged outputs; — for a published table, "
                "which gives no interval"),
            "judged": st.column_config.NumberColumn(
                "Judged outputs", format="%d", help="Outputs of this system with human judgements behind its human "
                f"scores; a project's system needs at least {humans.attrs.get('min_judged', 50)}"),
            "source": st.column_config.TextColumn(
                "Human from", help="The annotation project organizers chose for this Leaderboard first, then the "
                "human-evaluation sample, then the published table; — = no human judgement of this system"),
            "n": st.column_config.NumberColumn("Sentences"),
        },
        hide_index=True, placeholder=MISSING,
    )
    paper = table.assign(**{c: [with_interval(m, lo, hi) for m, lo, hi in
                                zip(table[c], table[f"{c}_low"], table[f"{c}_high"])] for c in AXIS_NAMES},
                         j_human_cell=[with_interval(m, lo, hi, 2) for m, lo, hi in
                                       zip(table["j_human"], table["j_human_low"], table["j_human_high"])])
    paper_downloads(paper, {"rank": "Rank", "system": "System", **{c: AXIS_NAMES[c] for c in [ax, *others]
                                                                     if c in AXIS_NAMES},
                            "j_human_cell": "J (human)", "judged": "Judged outputs"},
                    signature_caption(f"{edition.title}, {split} split: {label}, ranked by {AXIS_NAMES[ax]} "
                                      "with 95% bootstrap intervals over sentences", board_signature(board.preset,
                                      board.calibrated, choice.source, split)),
                    f"leaderboard_{choice.source}_{split}_{board.preset}", f"lb_paper_{board.preset}_{board.calibrated}",
                    digits={"judged": 0})
    if len(board.table) > 1:
        st.markdown(f"**Which differences are significant** ({AXIS_NAMES[ax]})")
        st.plotly_chart(p_value_heatmap(board.ranking.p_values), width="stretch", config={"displayModeBar": False},
                        key=f"lb_p_{board.preset}_{board.calibrated}")
        st.caption(f"Each cell: the p-value of a paired bootstrap test (over sentences) that the row's and the "
                   f"column's systems have the same mean {AXIS_NAMES[ax]}. Marked * and dark: p < 0.05, a "
                   "significant difference; light: not significant. The diagonal (a system with itself) is empty.")
    pairs = human_vs_auto(board, humans)
    if len(pairs) >= 2:
        judged = [f"{int(n):,} judged, 95% CI [{lo:.2f}, {hi:.2f}]" if n == n and lo == lo else "published table"
                  for n, lo, hi in zip(pairs["judged"], pairs["j_human_low"], pairs["j_human_high"])]
        fig = go.Figure(go.Scatter(x=pairs["j_human"], y=pairs["j"], mode="markers+text",
                                   text=[render.plot_text(s) for s in pairs["system"]], textposition="top center",
                                   customdata=judged,
                                   error_x=dict(type="data", symmetric=False,
                                                array=(pairs["j_human_high"] - pairs["j_human"]).fillna(0),
                                                arrayminus=(pairs["j_human"] - pairs["j_human_low"]).fillna(0),
                                                color="#2e7d5b", thickness=1),
                                   marker=dict(size=11, color="#2e7d5b"), name=f"local ({render.plot_text(label)})",
                                   hovertemplate="%{text}: human %{x:.2f} (%{customdata}), auto %{y:.3f}"
                                                 "<extra></extra>"))
        if published is not None:
            fig.add_trace(go.Scatter(x=published["j_human"], y=published["j_auto"], mode="markers+text",
                                     marker=dict(size=8, color="#bbbbbb"), name="published (official metrics)",
                                     text=[render.plot_text(published_key(t, m))
                                           for t, m in zip(published["team"], published["method"])],
                                     textposition="bottom center", textfont=dict(size=9, color="#999999"),
                                     hovertemplate="%{text}: human %{x:.2f}, auto %{y:.2f}<extra></extra>"))
        fig.update_layout(height=440, margin=dict(t=10, b=10), xaxis_title="human J", yaxis_title="automatic J",
                          xaxis=dict(range=[-0.02, 1.02]), yaxis=dict(range=[-0.02, 1.05]),
                          legend=dict(orientation="h", y=-0.18))
        st.plotly_chart(fig, width="stretch")
        rho = correlation(pairs["j_human"].to_numpy(), pairs["j"].to_numpy())
        st.caption(f"Human vs automatic J per system ({len(pairs)} systems with human scores"
                   + (f"; Spearman {rho:.2f} of their automatic J on the whole test set against their human J. The "
                      "agreement stated above is another measurement: the preset's J on the judged outputs "
                      "themselves, the sentences people saw" if rho == rho else "") + ").")
