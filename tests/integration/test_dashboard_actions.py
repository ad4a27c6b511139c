"""The run page's actions: each calls the SQL verb with actor dashboard:<user> and the reason,
and the page it redirects to says the real outcome."""

from __future__ import annotations

import html
import re

from tests.integration.test_dashboard_auth import CSRF, basic
from tests.integration.test_dashboard_runs import (
    claim,
    complete_claimed,
    dashboard_client,
    define_flows,
    fail_claimed,
    start,
)

FLASH = re.compile(r'<p class="flash (\w+)" role="status">(.*?)</p>', re.S)
AUTH = basic("alice", "s3cret")
SEEN_RERUNS = re.compile(r'<input type="hidden" name="seen_reruns" value="(\d+)">')


def act(client, run_id: str, verb: str, **form: str) -> tuple[str, str]:
    """Post one action as alice from the run page; return the flash (kind, text) shown.

    A rerun carries the page's ``seen_reruns`` unless ``form`` gives one.
    """
    page = client.get(f"/runs/{run_id}", headers=AUTH)
    csrf = CSRF.search(page.text).group(1)
    if verb == "rerun" and "seen_reruns" not in form:
        form["seen_reruns"] = SEEN_RERUNS.search(page.text).group(1)
    posted = client.post(f"/runs/{run_id}/{verb}", data={"csrf": csrf, **form}, headers=AUTH)
    assert posted.status_code == 303, posted.text
    assert posted.headers["location"] == f"/runs/{run_id}"
    shown = client.get(posted.headers["location"], headers=AUTH)
    again = client.get(posted.headers["location"], headers=AUTH)
    assert FLASH.search(again.text) is None  # shown once
    kind, text = FLASH.search(shown.text).groups()
    return kind, html.unescape(re.sub(r"<[^>]+>", "", text)).strip()


def events(conn, run_id: str, event: str) -> list[tuple]:
    return conn.execute(
        "select actor, reason, step_slug from pgflow.run_events where run_id = %s and event = %s",
        (run_id, event),
    ).fetchall()


def status_of(conn, run_id: str) -> str:
    return conn.execute("select status from pgflow.runs where run_id = %s", (run_id,)).fetchone()[0]


def failed_checkout(conn) -> str:
    run_id = start(conn, "checkout")
    for _ in range(3):
        conn.execute("update pgmq.q_checkout set vt = now() where true")
        fail_claimed(conn, claim(conn, "checkout"), "CardDeclined: no")
    assert status_of(conn, run_id) == "failed"
    return run_id


def client_for(dsn):
    return dashboard_client(dsn, basic_auth=("alice", "s3cret"))


def test_pause_resume_and_cancel_record_the_actor_and_reason(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "batch", [1, 2])

    with client_for(pgflow_dsn) as client:
        paused = act(client, run_id, "pause", reason="look first", expected_status="started")
        resumed = act(client, run_id, "resume", reason="looks fine", expected_status="paused")
        cancelled = act(client, run_id, "cancel", reason="duplicate", expected_status="started")

    assert paused == ("ok", "paused")
    assert resumed == ("ok", "resumed: now started")
    assert cancelled == ("ok", "cancelled")
    assert events(pgflow_conn, run_id, "run:paused") == [("dashboard:alice", "look first", None)]
    assert events(pgflow_conn, run_id, "run:resumed") == [("dashboard:alice", "looks fine", None)]
    assert events(pgflow_conn, run_id, "run:cancelled") == [("dashboard:alice", "duplicate", None)]


def test_a_run_that_moved_on_is_left_alone_and_the_page_says_so(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "batch", [1])
    with client_for(pgflow_dsn) as client:
        # The operator saw it started; a worker completes it before the click lands.
        page = client.get(f"/runs/{run_id}", headers=AUTH)
        csrf = CSRF.search(page.text).group(1)
        complete_claimed(pgflow_conn, claim(pgflow_conn, "batch"))
        client.post(
            f"/runs/{run_id}/cancel",
            data={"csrf": csrf, "reason": "stop it", "expected_status": "started"},
            headers=AUTH,
        )
        shown = client.get(f"/runs/{run_id}", headers=AUTH).text

    assert FLASH.search(shown).groups() == ("info", "already moved on: now completed")
    assert status_of(pgflow_conn, run_id) == "completed"
    assert events(pgflow_conn, run_id, "run:cancelled") == []


def test_retry_and_skip_a_failed_run(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    retried = failed_checkout(pgflow_conn)
    skipped = failed_checkout(pgflow_conn)

    with client_for(pgflow_dsn) as client:
        retry = act(client, retried, "retry", reason="gateway fixed", expected_status="failed")
        skip = act(
            client,
            skipped,
            "skip",
            reason="charged by hand",
            expected_status="failed",
            step="charge",
        )

    assert retry == ("ok", "retried: now started")
    assert events(pgflow_conn, retried, "run:retried") == [
        ("dashboard:alice", "gateway fixed", None)
    ]
    assert skip == ("ok", "skipped step charge: run now started")
    assert events(pgflow_conn, skipped, "step:skipped") == [
        ("dashboard:alice", "charged by hand", "charge")
    ]


def test_rerun_links_the_new_run(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    old = failed_checkout(pgflow_conn)

    with client_for(pgflow_dsn) as client:
        kind, text = act(client, old, "rerun", reason="try again fresh", expected_status="failed")
        new = pgflow_conn.execute("select run_id from pgflow.runs where rerun_of = %s", (old,))
        new_id = str(new.fetchone()[0])
        page = client.get(f"/runs/{old}", headers=AUTH)

    assert (kind, text) == ("ok", f"rerun started: new run {new_id} is started — open")
    assert status_of(pgflow_conn, old) == "failed"
    assert events(pgflow_conn, old, "run:rerun") == [("dashboard:alice", "try again fresh", None)]
    assert "Rerun (new run)" in page.text


def test_send_a_signal_to_a_waiting_run(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "approval")

    with client_for(pgflow_dsn) as client:
        bad = act(client, run_id, "signal", reason="r", signal_name="approved", payload="{nope")
        sent = act(
            client,
            run_id,
            "signal",
            reason="approved by phone",
            signal_name="approved",
            payload='{"by": "carol"}',
        )

    assert bad[0] == "error" and bad[1].startswith("not done: the payload is not JSON")
    assert sent == ("ok", "signal approved sent: taken by step approve")
    rows = pgflow_conn.execute(
        "select signal_name, payload, actor, reason, status from pgflow.signals where run_id = %s",
        (run_id,),
    ).fetchall()
    assert rows == [("approved", {"by": "carol"}, "dashboard:alice", "approved by phone", "taken")]


def test_refusals_are_reported_and_change_nothing(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "batch", [1])
    done = start(pgflow_conn, "batch", [1])
    complete_claimed(pgflow_conn, claim(pgflow_conn, "batch", 2))

    with client_for(pgflow_dsn) as client:
        no_reason = act(client, run_id, "cancel", reason="  ", expected_status="started")
        no_status = act(client, run_id, "cancel", reason="r")
        refused = act(client, done, "cancel", reason="r", expected_status="completed")
        unknown = client.post(f"/runs/{run_id}/explode", data={"reason": "r"}, headers=AUTH)

    assert no_reason == ("error", "not done: a reason is required")
    assert no_status == ("error", "not done: the form did not say which status you saw")
    assert refused[0] == "error" and refused[1].startswith("not done: ")
    assert "completed" in refused[1]
    assert unknown.status_code in (403, 404)
    assert status_of(pgflow_conn, done) == "completed"
    assert events(pgflow_conn, run_id, "run:cancelled") == []
