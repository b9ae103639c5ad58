"""What a served deployment needs besides Streamlit (no Streamlit here): client addresses and
trusted proxies (:mod:`.addresses`), sign-in tokens (:mod:`.signin_tokens`), the per-address and
per-process limits (:mod:`.throttle`, :mod:`.join_guard`, :mod:`.runs`, :mod:`.presence`,
:mod:`.budget`, :mod:`.memory`), the log pipe (:mod:`.logpipe`) and the files of a deployment
(nginx, systemd: :mod:`.deploy`)."""
