"""The app's pages by id (the file name in ``pages/``), and which a visitor sees by default:
read by the roles (:mod:`detox_core.ui.app.auth`) and the settings check
(:mod:`detox_core.ui.app.settings_check`)."""

from __future__ import annotations

#: Page id (the file name in ``pages/``) -> (title, icon), in the navigation's order.
PAGES = {
    "corpus": ("Corpus", ":material/menu_book:"),
    "live_scoring": ("Live scoring", ":material/bolt:"),
    "submissions": ("Submissions", ":material/upload_file:"),
    "leaderboard": ("Leaderboard", ":material/leaderboard:"),
    "compare": ("Compare systems", ":material/compare_arrows:"),
    "human_eval": ("Human vs automatic", ":material/groups:"),
    "annotate": ("Annotate", ":material/edit_note:"),
    "annotation_projects": ("Annotation projects", ":material/assignment:"),
}
DEFAULT_PUBLIC = ("corpus", "live_scoring", "leaderboard", "annotate")
#: Pages only organizers ever see, whatever ``public_pages`` says.
ORGANIZER_ONLY = ("annotation_projects",)
