"""The Human vs automatic page: where the judgements come from (:mod:`.source`), its tabs
(:mod:`.tabs`), the multilingual parts and LLM judges (:mod:`.judgements`) and the calibrators
organizers fit and save (:mod:`.calibrators`)."""
