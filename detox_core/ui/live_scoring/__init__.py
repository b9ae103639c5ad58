"""The Live scoring page: the text boxes and language picker (:mod:`.boxes`), the scored rewrites
(:mod:`.results`), suggested rewrites (:mod:`.suggest`) and an LLM's rewrites (:mod:`.llm_rewrite`)."""
