"""Tables as users read them."""

from __future__ import annotations

#: What a table shows for a missing value (``st.dataframe(placeholder=...)``): Streamlit's
#: default is a grey "None", which users read as a value.
MISSING = "—"
