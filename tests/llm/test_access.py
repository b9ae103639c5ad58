"""The visitors' allowance of the paid LLM judge: closed by default, limits when open."""

from __future__ import annotations

import pytest

from detox_core.errors import DetoxInputError
from detox_core.llm import access
from detox_core.llm.access import JudgeLimitError, VisitorAllowance, VisitorPolicy


def test_closed_to_visitors_by_default_and_free_for_organizers():
    a = VisitorAllowance()
    with pytest.raises(JudgeLimitError, match="for its organizers"):
        a.charge("203.0.113.7", 4, 0.001)
    assert access.visitor() is None
    access.charge(10_000, 100.0)  # an organizer's, the CLI's or a library run: not limited


def test_per_address_hour_daily_requests_and_dollars():
    now = [0.0]
    a = VisitorAllowance(VisitorPolicy(True, requests_per_hour=50, daily_requests=120, daily_usd=0.30),
                         clock=lambda: now[0])
    a.charge("a", 40, 0.10)
    with pytest.raises(JudgeLimitError, match="50 an hour from one address and yours sent 40"):
        a.charge("a", 11, 0.01)
    a.charge("b", 50, 0.10)  # another address has its own hour
    with pytest.raises(JudgeLimitError, match=r"budget for today is spent \(\$0.20 of \$0.30"):
        a.charge("c", 20, 0.11)
    now[0] += 3601
    a.charge("a", 30, 0.05)  # a new hour: 120 requests today in all
    with pytest.raises(JudgeLimitError, match="used up"):
        a.charge("d", 1, None)
    assert a.state()["requests_today"] == 120 and a.state()["usd_today"] == pytest.approx(0.25)
    now[0] += 86400
    a.charge("d", 1, None)


def test_a_visitor_run_is_charged_through_the_context():
    a = access.allowance()
    before = a.policy
    try:
        a.set_policy(VisitorPolicy(True, requests_per_hour=5, daily_requests=100, daily_usd=None))
        with access.visitor_run("198.51.100.9"):
            access.charge(5, None)
            with pytest.raises(JudgeLimitError):
                access.charge(1, None)
        access.charge(1, None)  # outside: not a visitor's
    finally:
        a.set_policy(before)


def test_settings_from_secrets_are_checked():
    p = VisitorPolicy.from_mapping({"visitors": "true", "visitor_requests_per_hour": "20", "visitor_daily_usd": 2})
    assert p == VisitorPolicy(True, 20, 1000, 2.0)
    with pytest.raises(DetoxInputError, match="visitor_daily_requests must be a number"):
        VisitorPolicy.from_mapping({"visitor_daily_requests": "lots"})
    with pytest.raises(DetoxInputError, match="cannot be negative"):
        VisitorPolicy.from_mapping({"visitor_requests_per_hour": -1})


def test_visitor_requests_are_counted_once_across_processes(tmp_path):
    """Two app processes on one database: an address's hourly requests and the day's cap
    are shared, so moving to another process (the proxy's cookie) buys nothing."""
    from detox_core.db import make_engine
    from detox_core.llm.access import SharedVisitorAllowance

    now = [1_800_000_000.0]
    url = f"sqlite:///{tmp_path / 'detox.sqlite'}"
    policy = VisitorPolicy(True, requests_per_hour=50, daily_requests=120, daily_usd=0.30)
    one = SharedVisitorAllowance(make_engine(url), policy, clock=lambda: now[0])
    two = SharedVisitorAllowance(make_engine(url), policy, clock=lambda: now[0])
    one.charge("10.0.0.1", 30, 0.01)
    with pytest.raises(JudgeLimitError, match="yours sent 30"):
        two.charge("10.0.0.1", 30, 0.01)  # 60 > 50 an hour, though process two saw none
    two.charge("10.0.0.1", 20, 0.01)
    two.charge("10.0.0.2", 50, 0.01)
    with pytest.raises(JudgeLimitError, match=r"used up \(100 of 120\)"):
        one.charge("10.0.0.3", 30, 0.01)  # the day's cap of all visitors
    assert one.state()["requests_today"] == two.state()["requests_today"] == 100
    with pytest.raises(JudgeLimitError, match="budget for today is spent"):
        one.charge("10.0.0.3", 5, 0.28)
    now[0] += 3601  # an hour later the address may send again; the day still counts
    one.charge("10.0.0.1", 20, 0.01)
    assert two.state()["requests_today"] == 120


def test_a_database_that_cannot_be_used_falls_back_to_the_processs_counts(tmp_path):
    from sqlalchemy import create_engine

    from detox_core.llm.access import SharedVisitorAllowance

    gone = SharedVisitorAllowance(create_engine(f"sqlite:///{tmp_path / 'missing' / 'no.sqlite'}"),
                                  VisitorPolicy(True, requests_per_hour=50, daily_requests=120))
    gone.charge("a", 40, None)
    with pytest.raises(JudgeLimitError, match="yours sent 40"):
        gone.charge("a", 20, None)


@pytest.mark.parametrize("shared", [False, True])
def test_what_a_run_reserved_and_did_not_send_is_given_back(tmp_path, shared):
    from sqlalchemy import create_engine

    from detox_core.llm.access import SharedVisitorAllowance

    policy = VisitorPolicy(True, requests_per_hour=10, daily_requests=100, daily_usd=1.0)
    a = (SharedVisitorAllowance(create_engine(f"sqlite:///{tmp_path / 'a.sqlite'}"), policy) if shared
         else VisitorAllowance(policy))
    a.charge("a", 8, 0.40)  # a run's worst case: every question re-asked
    a.refund("a", 3, 0.15)  # it sent 5
    assert a.used("a")["hour"] == 5 and a.state()["requests_today"] == 5
    assert a.state()["usd_today"] == pytest.approx(0.25)
    a.charge("a", 5, 0.10)  # the hour's ten, exactly
    with pytest.raises(JudgeLimitError):
        a.charge("a", 1, None)
