"""The only Streamlit-aware code of the package: the app's infrastructure (:mod:`.app`) and
the sections pages draw (:mod:`.sections`)."""
