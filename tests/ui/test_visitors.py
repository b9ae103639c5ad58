"""Sessions per client address: one client cannot fill the server with tabs."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from detox_core.ui.app.visitors import IDLE_S, SessionCounter


def test_an_address_holds_at_most_its_sessions_and_others_are_not_affected():
    now = [0.0]
    closed: set[str] = set()
    c = SessionCounter(3, is_active=lambda sid: sid not in closed, clock=lambda: now[0])
    assert all(c.admit("203.0.113.7", f"s{k}") for k in range(3))
    assert not c.admit("203.0.113.7", "s3")  # the fourth tab of the same address
    assert c.admit("198.51.100.2", "other")  # another visitor
    assert c.admit("203.0.113.7", "s1")  # an admitted session goes on running
    closed.add("s0")  # a tab closed: its place is free
    assert c.admit("203.0.113.7", "s3")
    now[0] += IDLE_S + 1  # idle sessions stop counting
    assert all(c.admit("203.0.113.7", f"t{k}") for k in range(3))
    assert c.live("203.0.113.7") == 3


def test_two_hundred_sessions_of_one_client_keep_forty(monkeypatch):
    c = SessionCounter(40)
    admitted = sum(c.admit("203.0.113.7", f"s{k}") for k in range(200))
    assert admitted == 40


def test_the_app_answers_an_address_over_its_limit_with_a_message_and_no_page(tiny_data, monkeypatch):
    import detox_core.ui.app.auth as auth
    import detox_core.ui.app.visitors as visitors

    counter = SessionCounter(2)
    counter.admit("203.0.113.7", "tab-1")
    counter.admit("203.0.113.7", "tab-2")
    monkeypatch.setattr(visitors, "session_counter", lambda: counter)
    monkeypatch.setattr(auth, "client_id", lambda: "203.0.113.7")
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert "Too many open tabs from your address" in at.error[0].value
    assert not at.title and not at.dataframe  # no page work done
    monkeypatch.setattr(auth, "client_id", lambda: "198.51.100.2")
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert at.title[0].value == "Corpus"


def test_the_limit_is_a_setting(monkeypatch):
    import pytest

    from detox_core import config
    from detox_core.errors import DetoxInputError

    monkeypatch.setenv("DETOX_MAX_SESSIONS_PER_ADDRESS", "5")
    assert config.max_sessions_per_address() == 5
    monkeypatch.setenv("DETOX_MAX_SESSIONS_PER_ADDRESS", "many")
    with pytest.raises(DetoxInputError, match="DETOX_MAX_SESSIONS_PER_ADDRESS"):
        config.max_sessions_per_address()
    monkeypatch.delenv("DETOX_MAX_SESSIONS_PER_ADDRESS")
    assert config.max_sessions_per_address() == 20  # far below the process's 100


def test_many_addresses_together_stop_at_the_process_limit_but_an_organizer_gets_in():
    closed: set[str] = set()
    c = SessionCounter(40, is_active=lambda sid: sid not in closed, max_total=5, reserve=0)
    admitted = [c.admit(f"198.51.100.{k}", f"s{k}") for k in range(8)]
    assert admitted == [True] * 5 + [False] * 3 and c.total() == 5
    assert c.admit("198.51.100.1", "s1")  # an admitted session goes on
    assert c.admit("203.0.113.9", "organizer", vip=True) and c.total() == 6
    closed.update({"s0", "s2"})  # two tabs closed: a place (the organizer holds the other)
    # It goes to the address that waited longest (.5, refused first), not to whichever asks first.
    assert not c.admit("198.51.100.6", "s6") and not c.admit("198.51.100.7", "s7")
    assert c.admit("198.51.100.5", "s5") and not c.admit("198.51.100.6", "s6")
    assert SessionCounter(40).admit("x", "y")  # 0: no limit
    # A session admitted long ago (idle, reconnected) is never turned away.
    assert c.admit("198.51.100.8", "s-old", admitted=True)


def _two_tabs_taken(monkeypatch, counter: SessionCounter) -> None:
    """The app's counter is ``counter`` with two visitors' tabs in it; this session comes from
    a third address, on a server with an organizer password."""
    import detox_core.ui.app.auth as auth
    import detox_core.ui.app.visitors as visitors

    counter.admit("198.51.100.1", "tab-1")
    counter.admit("198.51.100.2", "tab-2")
    monkeypatch.setattr(visitors, "session_counter", lambda: counter)
    monkeypatch.setattr(auth, "client_id", lambda: "203.0.113.7")
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "a long organizer password")


def test_the_app_says_the_server_is_full_and_does_no_page_work(tiny_data, monkeypatch):
    _two_tabs_taken(monkeypatch, SessionCounter(40, max_total=2, reserve=0))
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert "This server is full for now" in at.error[0].value and "at most 2 open sessions" in at.error[0].value
    assert not at.title and not at.dataframe
    # In the queue: the page tries again by itself (not while someone types in the form below).
    assert "in the queue" in at.error[0].value
    retry = next(h.proto.body for h in at.get("html") if "location.reload" in h.proto.body)
    assert "activeElement" in retry and "8000" in retry
    # The message has the organizer's sign-in form: the right password gets in.
    at.text_input(key="full_server_login_password").input("a long organizer password")
    at.button[0].click().run()
    assert not at.exception and at.title[0].value == "Corpus"
    # Admitted: it stays in, whatever the counts.
    at.run()
    assert at.title[0].value == "Corpus"


def test_the_process_limit_is_a_setting(monkeypatch):
    import pytest

    from detox_core import config
    from detox_core.errors import DetoxInputError

    monkeypatch.delenv("DETOX_MAX_SESSIONS", raising=False)
    assert config.max_sessions() == 100
    monkeypatch.setenv("DETOX_MAX_SESSIONS", "0")
    assert config.max_sessions() == 0
    monkeypatch.setenv("DETOX_MAX_SESSIONS", "-3")
    with pytest.raises(DetoxInputError, match="DETOX_MAX_SESSIONS"):
        config.max_sessions()


def beating(max_per_client=20, max_total=100, **kw):
    now = [0.0]
    return SessionCounter(max_per_client, clock=lambda: now[0], max_total=max_total, heartbeat=lambda: True, **kw), now


def test_idle_sockets_of_nine_addresses_hold_few_places_and_lose_them_within_a_minute():
    """Round 5: 102 WebSockets that ran the Annotate page once and sat idle made a process
    answer "server is full" to everyone, for as long as the attacker liked."""
    from detox_core.deployment.presence import GRACE_S, UNCONFIRMED_PER_ADDRESS

    c, now = beating()
    attackers = [f"203.0.113.{k}" for k in range(9)]
    admitted = [c.admit(a, f"{a}-{k}", reserved=True) for k in range(34) for a in attackers]  # 306 sockets
    assert sum(admitted) == 9 * UNCONFIRMED_PER_ADDRESS  # none of them beats: eight places per address
    # A new visitor and a new annotator get in at once, and their pages beat.
    assert c.admit("198.51.100.1", "visitor") and c.beat(c.token("visitor"))
    assert c.admit("198.51.100.2", "annotator", reserved=True) and c.beat(c.token("annotator"))
    # Half a minute later the idle sockets count no more, and the sweeper closes them.
    now[0] += GRACE_S + 1
    connected = [f"{a}-{k}" for k in range(34) for a in attackers] + ["visitor", "annotator"]
    closing = c.to_close(connected, {})
    assert "visitor" not in closing and "annotator" not in closing
    assert {f"{a}-0" for a in attackers} <= set(closing)
    assert c.total() == 2
    # No longer counted, they are still closed at the next sweep (not given a new grace).
    assert {f"{a}-0" for a in attackers} <= set(c.to_close(connected, {}))


def test_a_tab_that_beats_stays_counted_and_one_that_stops_is_dropped():
    from detox_core.deployment.presence import BEAT_S, DROP_S

    c, now = beating()
    assert c.admit("198.51.100.1", "reader") and c.admit("198.51.100.1", "gone")
    for _ in range(10):  # a person reading for minutes, without a rerun: the page beats
        now[0] += BEAT_S
        assert c.beat(c.token("reader"))
    c.beat(c.token("gone"))
    now[0] += DROP_S
    c.beat(c.token("reader"))
    assert c.to_close(["reader", "gone"], {}) == ["gone"]
    assert c.live("198.51.100.1") == 1
    assert not c.beat("a made-up token") and not c.beat("x" * 10_000)
    # The dropped tab, back (a laptop woke up): its own state says it was admitted.
    assert c.admit("198.51.100.1", "gone", admitted=True) and c.beat(c.token("gone"))


def test_visitors_leave_a_reserve_for_new_annotators_and_the_organizer_always_gets_in():
    c, _now = beating(max_per_client=0, max_total=10)  # reserve: 2
    visitors_in = [c.admit(f"198.51.100.{k}", f"v{k}") for k in range(12)]
    for k in range(12):
        if visitors_in[k]:
            c.beat(c.token(f"v{k}"))
    assert sum(visitors_in) == 8
    assert c.refusal("198.51.100.99") == "full"
    assert c.admit("198.51.100.50", "annotator-1", reserved=True)
    assert c.admit("198.51.100.51", "annotator-2", reserved=True)
    assert not c.admit("198.51.100.52", "annotator-3", reserved=True)  # the reserve is taken too
    assert c.admit("198.51.100.53", "organizer", vip=True)


def test_without_the_app_routes_sessions_count_as_before():
    """A plain `streamlit run app.py` serves no beat route: nothing is dropped for not beating."""
    now = [0.0]
    c = SessionCounter(3, clock=lambda: now[0], max_total=100)
    assert all(c.admit("203.0.113.7", f"s{k}") for k in range(3)) and not c.admit("203.0.113.7", "s4")
    now[0] += 600
    assert c.to_close(["s0", "s1", "s2"], {}) == [] and c.live("203.0.113.7") == 3


def test_a_place_kept_for_annotators_is_marked_and_a_tab_whose_beats_go_elsewhere_lives_on_its_reruns():
    from detox_core.deployment.presence import DROP_S

    c, now = beating(max_per_client=0, max_total=5)  # reserve: 1, visitors: 4
    for k in range(4):
        assert c.admit(f"198.51.100.{k}", f"v{k}") and c.beat(c.token(f"v{k}"))
    assert c.admit("198.51.100.9", "annotate-tab", reserved=True) and c.in_reserve("annotate-tab")
    assert not c.in_reserve("v0") and c.visitor_places() == 4
    # Behind the proxy, v0's beats now reach another process; its page asks for a rerun here.
    for _ in range(5):
        now[0] += DROP_S / 2
        assert c.admit("198.51.100.0", "v0")  # the rerun
        c.beat(c.token("annotate-tab"))
    assert "v0" not in c.to_close(["v0", "annotate-tab"], {})


def test_a_visitor_in_the_annotators_reserve_may_open_annotate_only(tiny_data, monkeypatch):
    _two_tabs_taken(monkeypatch, SessionCounter(40, max_total=3, reserve=1))
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60)
    at.switch_page("pages/annotate.py").run()
    assert not at.exception and at.title[0].value == "Annotate"  # the reserve: a new annotator gets in
    at.switch_page("pages/corpus.py").run()
    assert "full for visitors" in at.error[0].value and "Annotate" in at.error[0].value and not at.dataframe


def test_scripted_tabs_that_only_beat_give_their_places_to_newcomers():
    """Round 6: 5 addresses x 20 scripted tabs, each beating with its own token, held every
    place of a process; new visitors were told "full" throughout. Now a tab that has not run
    for YIELD_IDLE_S gives its place to a newcomer, from the address holding the most."""
    from detox_core.deployment.presence import BEAT_S, YIELD_IDLE_S

    c, now = beating(max_per_client=20, max_total=100)  # 80 places for visitors: 4 addresses fill them
    scripts = [f"203.0.113.{k}" for k in range(4)]
    held = [f"{a}-{k}" for a in scripts for k in range(20)
            if c.admit(a, f"{a}-{k}") and c.beat(c.token(f"{a}-{k}"))]  # each beats at once, as a script can
    assert len(held) == 80

    def beat_all() -> None:
        for sid in held:
            if c.token(sid):
                c.beat(c.token(sid))

    beat_all()
    assert not c.admit("198.51.100.1", "newcomer-0")  # the scripts' tabs ran just now: a real person's could be anyone
    while now[0] < YIELD_IDLE_S:
        now[0] += BEAT_S
        beat_all()
    # Beating, never running: the first newcomers take their places, one each.
    newcomers = [f"198.51.100.{k}" for k in range(1, 11)]
    assert all(c.admit(a, f"newcomer-{a}") for a in newcomers)
    yielded = [sid for sid in held if c.yielded(sid)]
    assert len(yielded) == 10 and c.total() == 80
    # A yielded tab is refused when it runs again (its state said "admitted"), and closed once.
    assert not c.admit("203.0.113.0", yielded[0], admitted=True)
    assert set(yielded) <= set(c.to_close(held, {}))
    assert not set(yielded) & set(c.to_close(held, {}))  # told why when it reconnects, not closed again
    # The scripts cannot take the places back with new tabs: they hold more than the newcomers.
    assert not any(c.admit(a, f"{a}-again") for a in scripts)
    # A newcomer's second, third ... tab: only while its address holds fewer than the biggest.
    assert c.admit(newcomers[0], "newcomer-second-tab")


def test_a_person_using_the_app_keeps_their_place_in_a_full_process():
    """Only a tab that has not run (drawn, been clicked) for YIELD_IDLE_S gives up its place;
    one that is used keeps it, however many places its address holds."""
    from detox_core.deployment.presence import YIELD_IDLE_S

    c, now = beating(max_per_client=20, max_total=10)  # 8 visitor places
    lab = [f"lab-{k}" for k in range(8)]
    assert all(c.admit("192.0.2.1", sid) and c.beat(c.token(sid)) for sid in lab)
    now[0] += YIELD_IDLE_S * 3
    for sid in lab:
        c.beat(c.token(sid))
        assert c.admit("192.0.2.1", sid)  # a click: the page runs
    now[0] += 1
    assert not c.admit("198.51.100.7", "newcomer")
    assert c.refusal("198.51.100.7") == "full" and not any(c.yielded(sid) for sid in lab)
    assert c.holders() == [("192.0.2.1", 8, 0)]


def test_a_tab_that_gave_its_place_is_told_why(tiny_data, monkeypatch):
    import detox_core.ui.app.auth as auth
    import detox_core.ui.app.visitors as visitors

    c, _now = beating(max_per_client=20, max_total=10)
    monkeypatch.setattr(visitors, "session_counter", lambda: c)
    monkeypatch.setattr(auth, "client_id", lambda: "203.0.113.7")
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception and at.title[0].value == "Corpus"
    sid = next(s for s in c._seen)  # this AppTest session's id
    with c._lock:  # it gives its place (as _make_room does)
        c._tokens.pop(c._seen.pop(sid).token, None)
        c._yielded[sid] = 0.0
    at.run()
    assert not at.exception and not at.title
    assert "gave its place to a newcomer" in at.info[0].value and "Reload this page" in at.info[0].value


def test_organizers_places_kept_for_annotators_and_long_runs_are_never_given_up():
    from detox_core.deployment.presence import YIELD_IDLE_S

    c, now = beating(max_per_client=20, max_total=10)  # 8 visitor places, 2 kept for annotators
    for k in range(8):
        assert c.admit("192.0.2.1", f"tab-{k}") and c.beat(c.token(f"tab-{k}"))
    assert c.admit("192.0.2.1", "tab-0", vip=True)  # tab-0 signed in as organizer since
    assert c.admit("192.0.2.1", "annotating", reserved=True) and c.in_reserve("annotating")
    tabs = [f"tab-{k}" for k in range(8)] + ["annotating"]

    def wait(seconds: float) -> None:  # the tabs beat meanwhile
        for _ in range(int(seconds // 20) + 1):
            now[0] += 20
            for sid in tabs:
                c.beat(c.token(sid))

    wait(YIELD_IDLE_S)
    for k in range(1, 8):
        c.ran(f"tab-{k}")  # their runs (a whole submission scored) ended just now
    assert not c.admit("198.51.100.3", "newcomer")
    assert not any(c.yielded(sid) for sid in tabs)
    wait(YIELD_IDLE_S)  # now idle: a visitor's tab gives its place, not the organizer's
    assert c.admit("198.51.100.3", "newcomer")
    assert not c.yielded("tab-0") and not c.yielded("annotating")
    assert sum(c.yielded(f"tab-{k}") for k in range(1, 8)) == 1


def test_an_address_holding_many_places_gives_up_a_tab_idle_for_half_a_minute():
    """The first newcomers to a process full of scripted tabs waited up to two minutes; an address
    holding HOARD_SHARE of the places (at least HOARD_MIN) now gives up a tab idle for
    HOARD_IDLE_S, while a smaller holder's tab still needs YIELD_IDLE_S."""
    from detox_core.deployment.presence import HOARD_IDLE_S, HOARD_MIN, YIELD_IDLE_S

    c, now = beating(max_per_client=20, max_total=10)  # 8 visitor places
    tabs = {"203.0.113.1": HOARD_MIN, "192.0.2.1": 3, "192.0.2.2": 1}
    sids = [f"{a}-{k}" for a, n in tabs.items() for k in range(n)]
    assert all(c.admit(sid.rsplit("-", 1)[0], sid) and c.beat(c.token(sid)) for sid in sids)

    def later(seconds: float) -> None:
        now[0] += seconds
        for sid in sids:
            if c.token(sid):
                c.beat(c.token(sid))

    later(HOARD_IDLE_S - 5)
    assert not c.admit("198.51.100.1", "newcomer-1")
    later(10)
    assert c.admit("198.51.100.1", "newcomer-1")
    assert sum(c.yielded(f"203.0.113.1-{k}") for k in range(HOARD_MIN)) == 1  # the hoarder's, no one else's
    # Now 3 and 3: neither holds HOARD_MIN, so their tabs give up their places after YIELD_IDLE_S only.
    assert not c.admit("198.51.100.2", "newcomer-2")
    later(YIELD_IDLE_S - HOARD_IDLE_S)
    assert c.admit("198.51.100.2", "newcomer-2")


def test_a_place_that_frees_goes_to_the_newcomer_waiting_longest_not_a_holders_next_tab():
    """Scripts topped up every place that freed; now a refused newcomer queues, and the place goes
    to the address waiting longest among those holding the fewest. One that stops trying leaves
    the queue after WAIT_KEEP_S; a page that reloads itself keeps its turn."""
    from detox_core.deployment.presence import WAIT_KEEP_S

    closed: set[str] = set()
    now = [0.0]
    c = SessionCounter(20, is_active=lambda sid: sid not in closed, clock=lambda: now[0], max_total=10,
                       heartbeat=lambda: True)
    held = [f"script-{k}" for k in range(8)]
    assert all(c.admit("203.0.113.1", sid) and c.beat(c.token(sid)) for sid in held)
    c.ran(held[0])
    assert not c.admit("198.51.100.1", "newcomer")  # full, nothing idle: it waits
    assert c.waiting() == 1
    now[0] += 5
    closed.add("script-0")  # a place frees
    assert not c.admit("203.0.113.1", "script-new")  # the script's next tab: the newcomer goes first
    assert c.admit("198.51.100.1", "newcomer") and c.waiting() == 1  # now only the script's address waits
    c.beat(c.token("newcomer"))
    # A second newcomer who gives up: after WAIT_KEEP_S it no longer keeps a freed place from others.
    assert not c.admit("198.51.100.2", "gave-up")
    closed.add("script-1")
    now[0] += 1
    assert not c.admit("192.0.2.9", "later-visitor")  # the place is kept for the one waiting longer
    now[0] += WAIT_KEEP_S + 1
    assert c.admit("192.0.2.9", "later-visitor")
    # A page reloading itself (a new session each time) keeps its address's turn.
    for sid in [*held[2:], "newcomer", "later-visitor"]:
        c.beat(c.token(sid))
        c.ran(sid)  # in use: none of them gives its place up
    assert not c.admit("198.51.100.3", "first-load")
    now[0] += 3
    assert not c.admit("192.0.2.10", "another")  # came later
    closed.update({"first-load", "script-2"})  # the first page reloads itself; a place frees meanwhile
    now[0] += 6
    assert not c.admit("192.0.2.10", "another")
    assert c.admit("198.51.100.3", "reloaded")


def test_waiting_visitors_do_not_keep_annotators_out_of_their_places():
    """The places kept for the Annotate page stay theirs while visitors queue for the others."""
    c, _now = beating(max_per_client=20, max_total=10)  # 8 visitor places, 2 kept for annotators
    assert all(c.admit(f"192.0.2.{k}", f"tab-{k}") and c.beat(c.token(f"tab-{k}")) for k in range(8))
    assert not c.admit("198.51.100.1", "visitor-1") and not c.admit("198.51.100.2", "visitor-2")
    assert c.waiting() == 2
    assert c.admit("203.0.113.5", "annotator", reserved=True) and c.in_reserve("annotator")


def test_a_page_run_takes_its_addresss_turn_and_gives_it_back(tiny_data, monkeypatch):
    """app.py runs a page in its address's turn and frees the turn at the end; with the
    address's turns taken by its other tabs, the run waits (bounded) and the page still draws."""
    import detox_core.deployment.runs as runs
    import detox_core.ui.app.auth as auth
    import detox_core.ui.app.visitors as visitors

    share = runs.RunShare(2)
    monkeypatch.setattr(visitors, "run_share", lambda: share)
    monkeypatch.setattr(visitors, "session_counter", lambda: SessionCounter(0))
    monkeypatch.setattr(auth, "client_id", lambda: "203.0.113.7")
    taken = []
    real = share.acquire

    def watch(client, wait_s=runs.WAIT_S, blocking=True):
        took = real(client, wait_s=wait_s, blocking=blocking)
        taken.append((client, took, share.running(client)))
        return took

    monkeypatch.setattr(share, "acquire", watch)
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception and at.title[0].value == "Corpus"
    # (the root address forwards to Corpus: two runs, one after the other)
    assert taken and all(t == ("203.0.113.7", True, 1) for t in taken) and share.running("203.0.113.7") == 0
    # The address's two turns held by its other tabs: this run waits for them, then goes anyway.
    real("203.0.113.7"), real("203.0.113.7")
    monkeypatch.setattr(runs, "WAIT_S", 1.0)
    taken.clear()
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception and at.title[0].value == "Corpus"
    assert taken and not any(t[1] for t in taken) and share.running("203.0.113.7") == 2


def test_a_turn_comes_back_even_when_the_run_is_stopped_right_after_taking_it(monkeypatch):
    """The turn is noted outside the session's state the moment it is taken: a run stopped
    while its page says "runs in its turn" (a closed tab, a rerun) still gives it back at its
    end, and a session's next run never holds two."""
    from types import SimpleNamespace

    import detox_core.deployment.runs as runs
    import detox_core.ui.app.auth as auth
    import detox_core.ui.app.visitors as visitors

    share = runs.RunShare(1)
    monkeypatch.setattr(visitors, "run_share", lambda: share)
    monkeypatch.setattr(visitors, "session_counter", lambda: SessionCounter(0))
    monkeypatch.setattr(visitors, "get_script_run_ctx", lambda: SimpleNamespace(session_id="tab-1"))
    monkeypatch.setattr(auth, "client_id", lambda: "203.0.113.7")
    monkeypatch.setattr(auth, "is_open", lambda: False)
    monkeypatch.setattr(auth, "is_organizer", lambda: False)
    monkeypatch.setattr(runs, "WAIT_S", 0.2)

    class Stopped(Exception):
        pass

    class Note:
        def caption(self, _text):
            share.release("203.0.113.7")  # the other tab's run ends while this one waits

        def empty(self):
            raise Stopped  # and this run is stopped as it clears its note

    assert share.acquire("203.0.113.7")  # another tab of the address runs
    monkeypatch.setattr(visitors.st, "empty", lambda: Note())
    try:
        visitors.take_turn()
    except Stopped:
        pass
    assert share.running("203.0.113.7") == 1  # this run has the turn
    visitors.session_ran()  # its end (app.py's finally)
    assert share.running("203.0.113.7") == 0


def test_who_takes_no_turn_and_a_long_job_gives_its_turn_back(monkeypatch):
    """A person on the server's own machine and a signed-in annotator take no turn (their runs
    never queue behind a colleague's long job at one address); a run that starts a whole
    submission's scoring gives its turn back at once."""
    from types import SimpleNamespace

    import detox_core.deployment.runs as runs
    import detox_core.ui.app.auth as auth
    import detox_core.ui.app.visitors as visitors

    share = runs.RunShare(1)
    monkeypatch.setattr(visitors, "run_share", lambda: share)
    monkeypatch.setattr(visitors, "get_script_run_ctx", lambda: SimpleNamespace(session_id="tab-1"))
    monkeypatch.setattr(auth, "is_open", lambda: False)
    monkeypatch.setattr(auth, "is_organizer", lambda: False)
    state: dict = {}
    monkeypatch.setattr(visitors.st, "session_state", state)
    for address in ("127.0.0.1", "::1"):
        monkeypatch.setattr(auth, "client_id", lambda address=address: address)
        visitors.take_turn()
        assert share.running(address) == 0
    monkeypatch.setattr(auth, "client_id", lambda: "203.0.113.7")
    state["ann_id"] = 7
    visitors.take_turn()
    assert share.running("203.0.113.7") == 0
    del state["ann_id"]
    visitors.take_turn()
    assert share.running("203.0.113.7") == 1
    visitors.give_back_turn()  # the scoring of a whole submission starts
    assert share.running("203.0.113.7") == 0 and share.acquire("203.0.113.7", blocking=False)
