"""LLM-as-a-judge: prompt templates and their strict parser (:mod:`.prompts`), a
retrying chat-completions client (:mod:`.client`), a persistent response cache in the
app's database (:mod:`.cache`), the runner (:mod:`.runner`), where the settings come from
(:mod:`.settings`) and a local causal-LM judge (:mod:`.local`). The registered preset is
:mod:`detox_core.metrics.llm_judge`.
"""
