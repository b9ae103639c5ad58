"""Tables as users read them."""

from __future__ import annotations

import streamlit as st

from detox_core.analysis.export import DIGITS, to_csv, to_latex, to_markdown

#: What a table shows for a missing value (``st.dataframe(placeholder=...)``): Streamlit's
#: default is a grey "None", which users read as a value.
MISSING = "—"


def paper_downloads(frame, columns: dict[str, str], caption: str, name: str, key: str, container=None,
                    digits: int | dict[str, int] = DIGITS) -> None:
    """CSV, LaTeX (booktabs) and Markdown downloads of one table, with ``caption`` (the
    context and the preset's signature) in the LaTeX and Markdown ones; a row of buttons
    that wraps on a narrow screen. LaTeX and Markdown round number cells to ``digits``
    decimals (the page's precision: one for all, or per column); the CSV too, with numbers as
    numbers (a score's interval in ``_low`` and ``_high`` columns beside it)."""
    row = (container or st).container(horizontal=True, wrap=True, gap="small")
    table = frame[list(columns)]
    row.download_button("CSV", lambda: to_csv(table, columns, digits).encode("utf-8"),
                        file_name=f"{name}.csv", mime="text/csv", icon=":material/download:", key=f"{key}_csv")
    row.download_button("LaTeX (booktabs)", lambda: to_latex(table, columns, caption, label=f"tab:{name}",
                                                             digits=digits).encode(),
                        file_name=f"{name}.tex", mime="text/x-tex", icon=":material/description:", key=f"{key}_tex",
                        help="A table environment with booktabs rules (\\usepackage{booktabs}); the caption says "
                             "the test set and the preset's signature.")
    row.download_button("Markdown", lambda: to_markdown(table, columns, caption, digits).encode("utf-8"),
                        file_name=f"{name}.md", mime="text/markdown", icon=":material/description:",
                        key=f"{key}_md")
