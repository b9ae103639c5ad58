"""The Compare page: systems' means, significance and one pair sentence by sentence
(:mod:`.systems`), and a system's failure kinds (:mod:`.failure_groups`)."""
