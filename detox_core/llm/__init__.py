"""A chat LLM for judging and rewriting: who may call it (:mod:`.access`), prompt templates
and their strict parser (:mod:`.prompts`), a retrying chat-completions client
(:mod:`.client`), a persistent response cache in the app's database (:mod:`.cache`), the
judging runner (:mod:`.runner`), where the settings come from (:mod:`.settings`) and a local
causal-LM judge (:mod:`.local`). The registered LLM-as-a-judge
preset is :mod:`detox_core.metrics.llm_judge`; the labels of published LLM judges are read by
:mod:`detox_core.data.judge_labels`.
"""
