"""Leaderboard of a multilingual edition (TextDetox): the published tables per language, the
local submissions ranked by the mean over languages, and teams x languages."""

from __future__ import annotations


import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from detox_core import vocab
from detox_core.analysis.export import signature_caption, with_interval
from detox_core.analysis.leaderboard import average_help, average_label, heat_rows, published_view, rank_label
from detox_core.data.leaderboards import load_published
from detox_core.errors import DetoxInputError
from detox_core.metrics.reference import reference_notes
from detox_core.metrics.registry import preset_class
from detox_core.ui.app import render
from detox_core.ui.app.submission_store import cached_language_boards, shared_store
from detox_core.ui.widgets.preset_agreement import agreement_note
from detox_core.ui.leaderboard.human_scores import board_signature
from detox_core.ui.leaderboard.board import AXIS_NAMES, p_value_heatmap
from detox_core.ui.widgets.scores import preset_label
from detox_core.ui.sidebar.corpus import split_languages, split_picker
from detox_core.ui.widgets.tables import MISSING, paper_downloads


def _langs(codes) -> str:
    return ", ".join(f"{vocab.language_name(c)} ({c})" for c in codes)


def language_columns(langs, fmt: str = "%.3f") -> dict:
    return {c: st.column_config.NumberColumn(c.upper(), format=fmt, help=vocab.language_name(c)) for c in langs}


def teams_heatmap(rows, axis_label: str) -> go.Figure:
    """Teams x languages with the values written in the cells (empty where not scored)."""
    z = [[None if v != v else float(v) for v in row] for row in rows.to_numpy(dtype=float)]
    compact = len(rows.columns) > 10  # many languages: values x 100 so that they fit narrow cells
    text = [["" if v is None else (f"{100 * v:.0f}" if compact else f"{v:.2f}") for v in row] for row in z]
    names = [render.plot_text(str(n)) for n in rows.index]
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


def multilingual_leaderboard(choice, edition) -> None:
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
        of_preset = listed[listed["preset"] == pb.preset]
        why = (reference_notes(store.get(int(of_preset["id"].iloc[-1])).signature).get(axis)
               if board.unscored and len(of_preset) and not set(board.languages) - set(board.unscored) else None)
        if why and why != "no references":
            # Off, or its model could not run, when they were scored: not "no references" in every
            # language of a split that has them.
            st.warning(f"{AXIS_NAMES[axis]}: n/a for these submissions — " + render.md(why, None)
                       + ". Rank by another axis.", icon=":material/info:")
        elif board.unscored:
            st.warning(f"{AXIS_NAMES[axis]}: n/a — no references for {_langs(board.unscored)}. These languages are "
                       "left out of every mean (never counted as zero); the means below are over the other "
                       "languages. STA and SIM need no references.", icon=":material/info:")
        t = board.table.copy()
        t["rank"] = [("partial" if not ok else rank_label(int(a), int(b)) if a == a else MISSING)  # NaN: no scores
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
                "system": st.column_config.TextColumn("Submission", width="medium"),  # a file name whole
                "mean": st.column_config.ProgressColumn(
                    f"{AXIS_NAMES[axis]} mean over languages" if not board.uncovered else
                    f"{AXIS_NAMES[axis]} mean over {len(langs) - len(board.uncovered)} of {len(langs)} languages",
                    min_value=0.0, max_value=1.0, format="%.3f"),
                "interval": st.column_config.TextColumn("95% CI"),
                "coverage": st.column_config.TextColumn("Languages answered"),
                "mean_over": st.column_config.TextColumn("Mean over", help="The languages its mean is over"),
                **{c: st.column_config.NumberColumn(
                    average_label(edition, c, pb.preset, pb.calibrated, axis), format="%.3f", width="small",
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
                                 "system": st.column_config.TextColumn("Submission", width="medium"),
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
