"""Leaderboard: the published ranking and locally scored submissions, with significance."""

from __future__ import annotations

import html

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from detox_core import data, editions, vocab
from detox_core.errors import DetoxInputError
from detox_core.analysis.leaderboard import (
    average_help,
    average_label,
    correlation,
    heat_rows,
    human_vs_auto,
    official_chrf,
    language_boards,
    published_key,
    published_view,
    rank_label,
)
from detox_core.data.leaderboards import load_published
from detox_core.submissions.service import split_inputs
from detox_core.ui.app.auth import require_page
from detox_core.ui.app import render
from detox_core.ui.sections.agreement import agreement_note
from detox_core.metrics.registry import preset_class
from detox_core.ui.sections.scores import preset_label
from detox_core.ui.sections.sidebar import current_choice, split_languages, split_picker
from detox_core.ui.app.submission_store import cached_boards, cached_human_scores, shared_store
from detox_core.analysis.export import signature_caption, with_interval
from detox_core.ui.sections.human_scores import board_signature, human_source_note
from detox_core.ui.sections.tables import MISSING, paper_downloads

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



def _langs(codes) -> str:
    return ", ".join(f"{vocab.language_name(c)} ({c})" for c in codes)


def language_columns(langs, fmt: str = "%.3f") -> dict:
    return {c: st.column_config.NumberColumn(c.upper(), format=fmt, help=vocab.language_name(c)) for c in langs}


def teams_heatmap(rows, axis_label: str) -> go.Figure:
    """Teams x languages with the values written in the cells (empty where not scored)."""
    z = [[None if v != v else float(v) for v in row] for row in rows.to_numpy(dtype=float)]
    compact = len(rows.columns) > 10  # many languages: values x 100 so that they fit narrow cells
    text = [["" if v is None else (f"{100 * v:.0f}" if compact else f"{v:.2f}") for v in row] for row in z]
    names = [html.escape(str(n)) for n in rows.index]
    fig = go.Figure(go.Heatmap(
        z=z, x=[c.upper() for c in rows.columns], y=names, zmin=0, zmax=1, text=text, texttemplate="%{text}",
        hoverongaps=False, colorscale="YlGn", colorbar=dict(title=dict(text=axis_label), thickness=12),
        showscale=not compact, textfont=dict(size=11),
        customdata=[[vocab.language_name(c) for c in rows.columns]] * len(names),
        hovertemplate="%{y} · %{customdata}: %{z:.3f}<extra></extra>",
    ))
    fig.update_layout(height=120 + 26 * len(names), margin=dict(t=10, b=10, l=10, r=10),
                      xaxis=dict(side="top", title=None), yaxis=dict(autorange="reversed", title=None, automargin=True))
    return fig


@st.cache_data(show_spinner="Bootstrapping within each language…", max_entries=32)
def cached_language_boards(url: str, dataset: str, split: str, languages: tuple[str, ...], axis: str,
                           shown: tuple[tuple[int, str], ...], averages: tuple[tuple[str, tuple[str, ...]], ...] = ()):
    return language_boards(shared_store(), dataset, split, languages, axis, averages=dict(averages))


def multilingual_page(choice, edition) -> None:
    """The TextDetox editions: per-language columns, the mean over languages, published tables beside."""
    picked = choice.languages or edition.languages
    langs = [c for c in edition.languages if c in picked] + [c for c in picked if c not in edition.languages]
    st.caption(f"Languages: {_langs(langs)} (pick them in the sidebar). {edition.short} ranks by "
               f"{edition.ranking}.")
    st.subheader(f"{edition.short}: the published tables")
    tables = {}
    for title, path in edition.published_paths().items():
        try:
            tables[title] = load_published(path, title)
        except DetoxInputError as err:
            st.error(render.md(err, None))
    view, pub_axis = None, "j"
    if tables:
        title = st.segmented_control("Published table", list(tables), default=list(tables)[0], required=True,
                                     key="lb_pub", wrap=True) or list(tables)[0]
        table = tables[title]
        if len(table.axes) > 1:
            pub_axis = st.segmented_control("Axis", list(table.axes), default="j" if "j" in table.axes else None,
                                            required=True, key="lb_pub_axis", format_func=vocab.LABELS.get) or "j"
        view = published_view(table, pub_axis, langs)
        shown_langs = [c for c in langs if c in table.languages]
        official = [c for c in view.columns if c.startswith(("avg", "rank"))]
        st.dataframe(
            view.drop(columns=["complete"]), hide_index=True, placeholder=MISSING,
            column_order=["team", "coverage", "mean", *official, *shown_langs],
            column_config={
                "team": st.column_config.TextColumn("Team"),
                "coverage": st.column_config.TextColumn("Languages", help="Languages of the picked ones the team has "
                                                        "a score for; a team without all of them is listed after"),
                "mean": st.column_config.ProgressColumn(
                    f"{vocab.LABELS[pub_axis]} mean ({len(shown_langs)} langs)", min_value=0.0, max_value=1.0,
                    format="%.3f", help="The mean over the picked languages the team has a score for"),
                **language_columns(shown_langs),
                **{c: st.column_config.NumberColumn(f"Official {c}", format="%.3f" if c.startswith("avg") else "%d",
                                                    help="As published (over all the edition's languages)")
                   for c in official},
            },
        )
        missing = [c for c in langs if c not in table.languages]
        st.caption(f"{render.md(title, None)}, as published ({vocab.LABELS[pub_axis]} per language). The mean is "
                   "over the picked languages; teams that lack some of them are listed after the complete ones, "
                   "their mean over the languages they have."
                   + (f" This table has no scores for {_langs(missing)}." if missing else "")
                   + (" Official columns: the published averages and ranks (over the edition's languages)."
                      if official else ""))
    else:
        st.info("The published tables are not fetched (`python -m detox_core fetch-data`).")

    st.subheader("Locally scored submissions")
    if not choice.ok:
        st.info(choice.problem or "No corpus loaded.")
        return
    c1, c2 = st.columns([1, 1])
    split = split_picker(choice, c1)
    axis = c2.segmented_control("Rank by", list(AXIS_NAMES), default="j", required=True, key="lb_axis", wrap=True,
                                format_func=AXIS_NAMES.get, help="Bootstrap intervals and significance use this "
                                "axis.") or "j"
    here = set(split_languages(choice, split))  # the picked languages this test set has inputs in
    langs = [c for c in langs if c in here] or langs
    store = shared_store()
    listed = store.list(dataset=choice.source, split=split)
    boards = cached_language_boards(store.url, choice.source, split, tuple(langs), axis,
                                    tuple(zip(listed["id"].tolist(), listed["name"].tolist())),
                                    tuple(edition.averages.items())) if len(listed) else []
    if not boards:
        st.info("Nothing scored for this test set yet: score submissions on the **Submissions** page.",
                icon=":material/info:")
    st.caption("Ranked within each preset only, by the mean over languages (each language counts once, whatever "
               "its size). Intervals: 95% bootstrap resampling sentences within each language (1,000 resamples). "
               "Rank: the range of ranks compatible with paired tests at p < 0.05; one group = not significantly "
               "different from the group's best. Partial submissions (some languages not answered) are not ranked: "
               "they follow, their mean over the languages they answer."
               + (" The edition's averages: " + "; ".join(f"{c}, the mean over {', '.join(m)}"
                                                          for c, m in edition.averages.items())
                  + " (whatever languages are picked; — when one of them is not scored). They are the official "
                  f"averages only in the {preset_label(edition.official_preset)} preset's ranking of J; the other "
                  "presets' columns name their preset."
                  if edition.averages and edition.official_preset else ""))
    for pb in boards:
        board = pb.board
        st.markdown(f"#### {preset_label(pb.preset, pb.calibrated)}")
        agreement_note(pb.preset, pb.calibrated, langs, key=f"lb_agr_{pb.preset}_{pb.calibrated}")
        if board.uncovered:
            scope = [c for c in board.languages if c not in board.uncovered and c not in board.unscored]
            st.info(f"The {preset_label(pb.preset, pb.calibrated)} preset covers "
                    f"{render.md(preset_class(pb.preset).coverage(), None)}: {_langs(board.uncovered)} are answered "
                    f"but not scored (n/a, never zero). The means below are over {len(scope)} of "
                    f"{len(board.languages)} languages ({', '.join(scope) or 'none'}): not the edition's average, and "
                    "not comparable with means over every language.", icon=":material/info:")
        if board.unscored:
            st.warning(f"{AXIS_NAMES[axis]}: n/a — no references for {_langs(board.unscored)}. These languages are "
                       "left out of every mean (never counted as zero); the means below are over the other "
                       "languages. STA and SIM need no references.", icon=":material/info:")
        t = board.table.copy()
        t["rank"] = [rank_label(int(a), int(b)) if ok else "partial"
                     for a, b, ok in zip(t["rank_low"], t["rank_high"], t["complete"])]
        t["interval"] = [f"[{lo:.3f}, {hi:.3f}]" if lo == lo else MISSING for lo, hi in zip(t["low"], t["high"])]
        scored = [c for c in langs if c not in board.unscored]
        st.dataframe(
            t[["rank", "group", "system", "mean", "interval", "coverage", "mean_over", *edition.averages, *langs,
               "n"]],
            hide_index=True, placeholder=MISSING,
            column_config={
                "rank": st.column_config.TextColumn("Rank", help="Range of ranks compatible with the significance "
                                                    "tests; partial = not every language answered, not ranked"),
                "group": st.column_config.NumberColumn("Group", help="Statistically tied systems share a group"),
                "system": st.column_config.TextColumn("Submission"),
                "mean": st.column_config.ProgressColumn(
                    f"{AXIS_NAMES[axis]} mean over languages" if not board.uncovered else
                    f"{AXIS_NAMES[axis]} mean over {len(langs) - len(board.uncovered)} of {len(langs)} languages",
                    min_value=0.0, max_value=1.0, format="%.3f"),
                "interval": st.column_config.TextColumn("95% CI"),
                "coverage": st.column_config.TextColumn("Languages answered"),
                "mean_over": st.column_config.TextColumn("Mean over", help="The languages its mean is over"),
                **{c: st.column_config.NumberColumn(
                    average_label(edition, c, pb.preset, pb.calibrated, axis), format="%.3f",
                    help=average_help(edition, c, pb.preset, pb.calibrated, axis))
                   for c in edition.averages},
                **language_columns(langs),
                "n": st.column_config.NumberColumn("Sentences"),
            },
        )
        t["mean_cell"] = [with_interval(m, lo, hi) for m, lo, hi in zip(t["mean"], t["low"], t["high"])]
        paper_downloads(t, {"rank": "Rank", "system": "System", "mean_cell": f"{AXIS_NAMES[axis]} (mean)",
                            "mean_over": "Mean over", "coverage": "Languages answered",
                            **{c: c for c in langs}},
                        signature_caption(f"{edition.title}, {split} split: {preset_label(pb.preset, pb.calibrated)}, "
                                          f"ranked by the mean {AXIS_NAMES[axis]} over languages with 95% bootstrap "
                                          "intervals (resampling within languages)",
                                          board_signature(pb.preset, pb.calibrated, choice.source, split),
                                          languages=", ".join(langs)),
                        f"leaderboard_{choice.source}_{split}_{pb.preset}", f"lb_paper_{pb.preset}_{pb.calibrated}")
        if board.by_language:
            per = [r.assign(lang=lang) for lang, r in board.by_language.items()]
            per = pd.concat(per, ignore_index=True)
            per["rank"] = [rank_label(a, b) for a, b in zip(per["rank_low"], per["rank_high"])]
            per["interval"] = [f"[{lo:.3f}, {hi:.3f}]" if lo == lo else MISSING for lo, hi in zip(per["low"], per["high"])]
            with st.expander(f"Per language: {AXIS_NAMES[axis]} with intervals and tied groups "
                             f"({len(scored)} languages)", expanded=False):
                st.dataframe(per[["lang", "rank", "group", "system", "mean", "interval", "n"]], hide_index=True,
                             placeholder=MISSING, key=f"lb_per_lang_{pb.preset}_{pb.calibrated}", column_config={
                                 "lang": st.column_config.TextColumn("Language"),
                                 "rank": st.column_config.TextColumn("Rank"),
                                 "group": st.column_config.NumberColumn("Group"),
                                 "system": st.column_config.TextColumn("Submission"),
                                 "mean": st.column_config.NumberColumn(AXIS_NAMES[axis], format="%.3f"),
                                 "interval": st.column_config.TextColumn("95% CI"),
                                 "n": st.column_config.NumberColumn("Sentences")})
                st.caption("Each language ranked on its own sentences (partial submissions included where they "
                           "answer it); 95% bootstrap intervals over that language's sentences.")
        if board.p_values is not None and len(board.p_values) > 1:
            st.markdown(f"**Which differences of the mean are significant** ({AXIS_NAMES[axis]})")
            st.plotly_chart(p_value_heatmap(board.p_values), width="stretch", config={"displayModeBar": False},
                            key=f"lb_p_{pb.preset}_{pb.calibrated}")
            st.caption("Paired bootstrap of the mean over languages, resampling sentences within each language; "
                       "p < 0.05 dark and starred.")

    st.subheader("Teams × languages")
    local = boards[0] if boards else None
    if len(boards) > 1:
        names = {i: preset_label(b.preset, b.calibrated) for i, b in enumerate(boards)}
        local = boards[st.selectbox("Local submissions of", list(names), format_func=names.get, key="lb_heat_preset")]
    limit = int(st.number_input("Rows of each table", 1, 100, 15, key="lb_heat_rows",
                                help="The best ones of the published table and of the local submissions"))
    local_rows = local.board.table if local is not None and local.board.axis == pub_axis else None
    rows = heat_rows(view, local_rows, langs, limit)
    if rows.empty:
        st.info("Nothing to show for these languages.")
        return
    st.plotly_chart(teams_heatmap(rows, vocab.LABELS[pub_axis]), width="stretch", config={"displayModeBar": False},
                    key="lb_heat")
    st.caption(f"{vocab.LABELS[pub_axis]} per team and language: the published table above and local submissions "
               "(\u201clocal:\u201d, their own preset: not the official metrics, so not strictly comparable); an "
               "empty cell has no score (a language not answered, or without references)."
               + (" With more than 10 languages the cells show the score x 100 (74 = 0.74)." if len(langs) > 10
                  else "")
               + ("" if local_rows is not None or local is None else
                  f" Local submissions appear when ranked by {vocab.LABELS[pub_axis]} above."))


st.title("Leaderboard")
require_page("leaderboard")
choice = current_choice()
# The chosen corpus's edition; an uploaded corpus is compared with the default one.
edition = editions.EDITIONS.get(choice.source) or editions.default_edition()
if edition.multilingual and choice.source == edition.name:
    multilingual_page(choice, edition)
    st.stop()
official = official_chrf(edition.name)
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

st.subheader("Locally scored submissions")
if not choice.ok:
    st.info(choice.problem or "No corpus loaded.")
    st.stop()
c1, c2 = st.columns([1, 1])
split = split_picker(choice, c1)
axis = c2.segmented_control("Rank by", list(AXIS_NAMES), default="j", required=True, key="lb_axis", wrap=True,
                            format_func=AXIS_NAMES.get, help="Bootstrap intervals and significance use this axis.")
_, split_refs = split_inputs(choice.whole if choice.whole is not None else choice.prepared, split)
boards = cached_boards(choice.source, split, axis or "j", references=split_refs)
if not boards:
    st.info("Nothing scored for this test set yet: score submissions on the **Submissions** page.",
            icon=":material/info:")
    st.stop()
st.caption("Ranked within each preset only. Intervals: 95% bootstrap over sentences (1,000 resamples). Rank: the "
           "range of ranks compatible with paired bootstrap tests at p < 0.05; systems in one group are not "
           "significantly different from the group's best.")
HUMAN_COLUMNS = list(vocab.HUMAN_SYSTEM_COLUMNS)
humans = cached_human_scores(edition)
human_source_note(humans)
for board in boards:
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
                                   text=[html.escape(s) for s in pairs["system"]], textposition="top center",
                                   customdata=judged,
                                   error_x=dict(type="data", symmetric=False,
                                                array=(pairs["j_human_high"] - pairs["j_human"]).fillna(0),
                                                arrayminus=(pairs["j_human"] - pairs["j_human_low"]).fillna(0),
                                                color="#2e7d5b", thickness=1),
                                   marker=dict(size=11, color="#2e7d5b"), name=f"local ({html.escape(label)})",
                                   hovertemplate="%{text}: human %{x:.2f} (%{customdata}), auto %{y:.3f}"
                                                 "<extra></extra>"))
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
                   + (f"; Spearman {rho:.2f} of their automatic J on the whole test set against their human J. The "
                      "agreement stated above is another measurement: the preset's J on the judged outputs "
                      "themselves, the sentences people saw" if rho == rho else "") + ").")
