"""The Corpus page: search and filters (:mod:`.search`), the table (:mod:`.table`), one pair
(:mod:`.pair`), statistics (:mod:`.charts`) and Find similar (:mod:`.similar`)."""
