"""The Submissions page: adding and scoring a submission (:mod:`.scoring`), the stored ones
(:mod:`.table`) and one submission sentence by sentence (:mod:`.sentences`)."""
