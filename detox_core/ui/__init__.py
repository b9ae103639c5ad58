"""The only Streamlit-aware code of the package: the app's infrastructure (:mod:`.app`), one folder
per page of what it draws (:mod:`.live_scoring`, :mod:`.submissions`, :mod:`.leaderboard`,
:mod:`.compare`, :mod:`.human_eval`, :mod:`.annotate`, :mod:`.annotation_projects`, :mod:`.corpus`),
the sidebar (:mod:`.sidebar`), the widgets several pages share (:mod:`.widgets`) and the
components' JavaScript and CSS (``components/``). Pages read the app's infrastructure."""
