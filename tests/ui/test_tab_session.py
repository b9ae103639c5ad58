"""An annotator's tab token (detox_core.ui.app.tab_session): only the server makes one,
it names one annotator, and Leave ends it in every process."""

from __future__ import annotations

from detox_core.annotation.store import Annotator
from detox_core.deployment.signin_tokens import SignInTokens
from detox_core.ui.app import tab_session


def annotator(id_: int = 42, project: int = 3, name: str = "Olga") -> Annotator:
    return Annotator(id=id_, project_id=project, name=name, status="active", exam_score=None, ban_reason=None)


def test_a_token_names_its_annotator_and_nothing_else_passes(tmp_path):
    tokens = SignInTokens(tmp_path)
    olga = annotator()
    token = tab_session.issue(tokens, olga)
    assert tab_session.claimed(tokens, token) == 42 and tab_session.holds(tokens, token, olga)
    payload, mac = token.split(".")
    assert tab_session.claimed(tokens, f"{payload}.{'0' * 64}") is None  # tampered
    assert tab_session.claimed(tokens, "42") is None and tab_session.claimed(tokens, None) is None
    assert tab_session.claimed(tokens, {"token": token}) is None  # not a string from the browser
    # The same id in another project, or with another name (an id reused after a deletion): not them.
    assert not tab_session.holds(tokens, token, annotator(project=4))
    assert not tab_session.holds(tokens, token, annotator(name="Oleg"))
    # An organizer's token is not an annotator's, and an annotator's is not an organizer's.
    organizer = tokens.issue("organizer", "the-organizer-password")
    assert tab_session.claimed(tokens, organizer) is None
    assert tokens.verify(token, "the-organizer-password") is None
    # Another server (another secret) does not accept it.
    assert tab_session.claimed(SignInTokens(tmp_path / "other"), token) is None


def test_leave_revokes_the_token_for_every_process(tmp_path):
    first, second = SignInTokens(tmp_path), SignInTokens(tmp_path)  # two processes, one data folder
    token = tab_session.issue(first, annotator(7))
    assert tab_session.holds(second, token, annotator(7))
    tab_session.revoke(first, token)
    assert tab_session.claimed(second, token) is None and not tab_session.holds(second, token, annotator(7))
    tab_session.revoke(first, None)  # nothing to revoke: no error


def test_an_expired_token_signs_nobody_in(tmp_path):
    tokens = SignInTokens(tmp_path, lifetime_s=60)
    role = tab_session._role(annotator(5))
    old = tokens.issue(role, tab_session._KEY, now=0)
    assert tab_session.claimed(tokens, old) is None


def test_a_new_password_set_by_an_organizer_signs_every_tab_out(tmp_path):
    import pandas as pd

    from detox_core.annotation.store import AnnotationStore

    store = AnnotationStore(f"sqlite:///{tmp_path / 'ann.sqlite'}")
    pairs = pd.DataFrame({"system": ["a", "b"], "idx": [0, 0], "input": ["x y z", "x y z"], "output": ["one", "two"]})
    code = store.create_project("p", ["toxicity"], pairs).access_code
    olga = store.join(code, "Olga", "a good long secret")
    tokens = SignInTokens(tmp_path)
    token = tab_session.issue(tokens, olga)
    assert tab_session.holds(tokens, token, store.annotator(olga.id))
    new = store.set_secret(olga.id)
    assert not tab_session.holds(tokens, token, store.annotator(olga.id))  # her old tabs are out
    again = store.join(code, "Olga", new)  # and she signs in with the new password
    assert tab_session.holds(tokens, tab_session.issue(tokens, again), store.annotator(olga.id))
