"""The Annotation projects page (organizers): a new project (:mod:`.new`), its progress
(:mod:`.progress`), review and results (:mod:`.review`), settings (:mod:`.settings`), who is kept
out and the Leaderboard's human scores (:mod:`.organizer`), crowd imports (:mod:`.crowd`) and
the crowd-filter workflow (:mod:`.crowd_filter`)."""
