"""The sidebar, drawn by ``app.py`` before every page: which corpus every page works on
(:mod:`.corpus`), the model settings (:mod:`.model_settings`) and the LLM judge's (:mod:`.llm_judge`)."""
