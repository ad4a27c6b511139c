"""After retry_run the run page keeps the earlier failures: Errors and the timeline.

retry_run deletes and recreates the tasks of the failed step, so their earlier attempts
live only in the audit trail (task:failed events); the page reads them from there, with
the traceback the worker sent when there is one.
"""

from __future__ import annotations

import html
import re

from tests.integration.test_dashboard_actions import failed_checkout
from tests.integration.test_dashboard_pages import BAR
from tests.integration.test_dashboard_runs import (
    claim,
    dashboard_client,
    define_flows,
    fail_claimed,
)

FAILURE = re.compile(
    r'<div class="error failure( before-retry)?" data-step="(\w+)" data-task="(\d+)"'
    r' data-attempt="(\d+)">(.*?)</div>',
    re.S,
)
TRACEBACK = (
    'Traceback (most recent call last):\n  File "shop.py", line 9, in charge\nCardDeclined: no'
)


def test_failures_before_a_retry_stay_listed_with_their_traceback(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = failed_checkout(pgflow_conn)  # charge failed 3 times: CardDeclined: no
    # The worker sent a traceback with the last failure (kept in the event's details).
    pgflow_conn.execute(
        "update pgflow.run_events"
        " set details = details || jsonb_build_object('traceback', %s::text)"
        " where run_id = %s and event = 'task:failed' and details ->> 'attempt' = '3'",
        (TRACEBACK, run_id),
    )
    pgflow_conn.execute("select pgflow.retry_run(%s, 'alice', 'gateway fixed')", (run_id,))
    pgflow_conn.execute("update pgmq.q_checkout set vt = now() where true")
    fail_claimed(pgflow_conn, claim(pgflow_conn, "checkout"), "TimeoutError: slow gateway")

    with dashboard_client(pgflow_dsn) as client:
        page = client.get(f"/runs/{run_id}").text

    failures = [
        (attempt, bool(before), html.unescape(body))
        for before, _, _, attempt, body in FAILURE.findall(page)
    ]
    assert [(attempt, before) for attempt, before, _ in failures] == [
        ("1", True),
        ("2", True),
        ("3", True),
        ("4", False),
    ]
    assert all("CardDeclined: no" in body for _, before, body in failures if before)
    assert "TimeoutError: slow gateway" in failures[3][2]
    assert '<details class="traceback"><summary>traceback</summary>' in failures[2][2]
    assert TRACEBACK in failures[2][2]
    assert "traceback" not in failures[0][2]

    # The timeline draws the attempts before the retry too, and marks the retry.
    bars = [(attempt, outcome) for _, _, attempt, outcome in BAR.findall(page)]
    assert bars == [
        ("1", "failed"),
        ("2", "failed"),
        ("3", "failed"),
        ("4", "failed"),
        ("5", "queued"),
    ]
    assert page.count('class="attempt o-failed before-retry"') == 3
    assert page.count('<g class="retry-mark"') == 1
    # Attempt 5 waits for its backoff: 20 s * 2^(4 - 3) after attempt 4 failed.
    waiting = re.search(r'data-attempt="5" data-outcome="queued">(.*?)</g>', page, re.S)
    assert '<rect class="seg backoff"' in waiting.group(1)
    assert waiting.group(1).endswith(">waiting to retry</text>")
