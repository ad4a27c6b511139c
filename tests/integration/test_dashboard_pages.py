"""The dashboard's pages (Starlette TestClient) against a real database, read-only mode.

The runs list says each run in words and keeps its filters across pages; the run page
draws the DAG (a node per step, with its status) and the timeline (a bar per attempt),
shows errors, workers, signals and the audit trail; --redact hides payloads; without a
configured credential there is no action form and every POST is refused.
"""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

from psycopg.types.json import Jsonb

from tests.integration.test_dashboard_runs import (
    claim,
    dashboard_client,
    define_flows,
    make_every_status,
    start,
)

ROW = re.compile(
    r'<tr class="run [^"]*" data-run-id="([^"]+)">.*?<td class="activity"[^>]*>(.*?)</td>', re.S
)
NODE = re.compile(
    r'<g class="node [^"]*" data-step="([^"]+)" data-status="([^"]+)" data-kind="(\w+)"'
)
BAR = re.compile(
    r'<g class="attempt [^"]*" data-step="([^"]+)" data-task="(\d+)"'
    r' data-attempt="(\d+)" data-outcome="(\w+)"'
)
OLDER = re.compile(r'<a href="([^"]+)" rel="next" class="older">')


def listed(page: str) -> dict[str, str]:
    """run id -> the sentence, in page order."""
    return {run_id: html.unescape(text) for run_id, text in ROW.findall(page)}


def test_the_runs_list_says_what_each_run_is_doing(pgflow_dsn, pgflow_conn):
    runs = make_every_status(pgflow_conn)
    pgflow_conn.execute("update pgflow.wait_states set waiting_since = now() - interval '3 h'")

    with dashboard_client(pgflow_dsn) as client:
        page = client.get("/")

    assert page.status_code == 200
    said = listed(page.text)
    assert list(said) == [
        str(r[0])
        for r in pgflow_conn.execute(
            "select run_id from pgflow.runs order by started_at desc, run_id desc"
        )
    ]
    assert said[runs["failed"]] == "failed at charge: CardDeclined"
    assert said[runs["running"]] == "running items: 2 of 5 tasks"
    assert said[runs["waiting"]] == "waiting for signal approved since 3 h"
    assert said[runs["queued_2"]] == "queued behind 2 runs (key k)"
    assert said[runs["paused"]] == "paused by alice: checking data"
    assert said[runs["completed"]] == "completed in 4.2 s"
    assert said[runs["retrying"]].startswith("retrying charge (attempt 2 of 3, next in ")
    # The full error is the row's tooltip.
    assert 'title="CardDeclined: card 4242 declined"' in page.text


def test_filters_combine_and_are_kept_across_pages(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    batch = [start(pgflow_conn, "batch", [1]) for _ in range(5)]
    others = [start(pgflow_conn, "approval") for _ in range(3)]
    pgflow_conn.execute("select pgflow.cancel_run(%s, 'bob', 'not needed')", (batch[0],))
    wanted = [
        str(r[0])
        for r in pgflow_conn.execute(
            "select run_id from pgflow.runs where flow_slug = 'batch' and status = 'started'"
            " order by started_at desc, run_id desc"
        )
    ]
    assert len(wanted) == 4 and not set(wanted) & set(others)

    seen, url, pages = [], "/?flow=batch&status=started&error=", 0
    with dashboard_client(pgflow_dsn, page_size=3) as client:
        while url:
            page = client.get(url)
            assert page.status_code == 200
            seen += list(listed(page.text))
            pages += 1
            older = OLDER.search(page.text)
            url = html.unescape(older.group(1)) if older else None
            if url:
                query = parse_qs(urlsplit(url).query)
                assert query["flow"] == ["batch"] and query["status"] == ["started"]
                assert "before" in query and "before_id" in query
        assert 'name="flow"' in page.text and '<option value="batch" selected>' in page.text

    assert seen == wanted
    assert pages == 2


def test_a_run_id_goes_to_its_page_and_a_bad_one_is_said(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "batch", [1])

    with dashboard_client(pgflow_dsn) as client:
        found = client.get("/", params={"run": run_id.upper()})
        bad = client.get("/", params={"run": "nope", "status": "bogus"})
        unknown = client.get("/runs/00000000-0000-0000-0000-000000000000")
        malformed = client.get("/runs/nope")

    assert found.status_code == 303
    assert found.headers["location"] == f"/runs/{run_id}"
    assert bad.status_code == 200
    assert "&#39;nope&#39; is not a run id" in bad.text
    assert "unknown status" in bad.text
    assert (unknown.status_code, malformed.status_code) == (404, 404)


def test_the_run_page_draws_steps_attempts_errors_workers_and_the_audit_trail(
    pgflow_dsn, pgflow_conn
):
    runs = make_every_status(pgflow_conn)

    with dashboard_client(pgflow_dsn) as client:
        failed = client.get(f"/runs/{runs['failed']}").text
        running = client.get(f"/runs/{runs['running']}").text
        completed = client.get(f"/runs/{runs['completed']}").text

    assert NODE.findall(failed) == [("charge", "failed", "single"), ("ship", "cancelled", "single")]
    assert 'data-from="charge" data-to="ship"' in failed
    assert BAR.findall(failed) == [
        ("charge", "0", "1", "failed"),
        ("charge", "0", "2", "failed"),
        ("charge", "0", "3", "failed"),
    ]
    assert failed.count("CardDeclined: card 4242 declined") >= 4  # step + 3 attempts
    assert "dashboard-test on checkout" in failed  # the worker that ran the task
    assert 'data-event="task:failed"' in failed and 'data-event="run:failed"' in failed

    assert NODE.findall(running) == [("items", "started", "map")]
    bars = BAR.findall(running)
    assert sorted(outcome for *_, outcome in bars) == ["completed"] * 2 + ["queued"] * 3
    assert "2/5 · map" in running

    assert [outcome for *_, outcome in BAR.findall(completed)] == ["completed", "completed"]
    assert NODE.findall(completed) == [
        ("charge", "completed", "single"),
        ("ship", "completed", "single"),
    ]


def test_redact_hides_payloads_but_keeps_errors(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    pgflow_conn.execute(
        "select pgflow.create_flow('secretive', max_attempts => 2, base_delay => 0)"
    )
    pgflow_conn.execute("select pgflow.add_step('secretive', 'first')")
    pgflow_conn.execute("select pgflow.add_step('secretive', 'second', array['first'])")
    run_id = start(pgflow_conn, "secretive", {"card": "secret-input-4242"})
    [task] = claim(pgflow_conn, "secretive")
    pgflow_conn.execute(
        "select pgflow.complete_task(%s, %s, %s, %s)",
        (*task, Jsonb({"token": "secret-output-77"})),
    )
    [task] = claim(pgflow_conn, "secretive")
    pgflow_conn.execute(
        "select pgflow.fail_task(%s, %s, %s, %s)", (*task, "KeyError: visible-error-text")
    )
    pgflow_conn.execute(
        "select pgflow.send_signal(%s, 'note', %s, null, 'app', null)",
        (run_id, Jsonb({"pin": "secret-signal-99"})),
    )
    secrets = ("secret-input-4242", "secret-output-77", "secret-signal-99")

    with dashboard_client(pgflow_dsn, redact=True) as client:
        hidden = client.get(f"/runs/{run_id}").text
    with dashboard_client(pgflow_dsn) as client:
        shown = client.get(f"/runs/{run_id}").text

    assert [s for s in secrets if s in hidden] == []
    assert "KeyError: visible-error-text" in hidden
    assert "payloads hidden" in hidden and "hidden (--redact)" in hidden
    assert [s for s in secrets if s in shown] == list(secrets)


def test_read_only_without_credentials_shows_no_form_and_refuses_posts(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "batch", [1])

    with dashboard_client(pgflow_dsn) as client:
        page = client.get(f"/runs/{run_id}").text
        post = client.post(
            f"/runs/{run_id}/cancel", data={"reason": "x", "expected_status": "started"}
        )
        login = client.post("/login", data={"token": "anything"})

    assert 'method="post"' not in page
    assert "read-only" in page
    assert post.status_code == 403
    assert login.status_code == 403
    status = pgflow_conn.execute("select status from pgflow.runs where run_id = %s", (run_id,))
    assert status.fetchone()[0] == "started"
    events = pgflow_conn.execute(
        "select count(*) from pgflow.run_events where run_id = %s and event = 'run:cancelled'",
        (run_id,),
    )
    assert events.fetchone()[0] == 0


def test_the_pages_are_served_with_their_stylesheet(pgflow_dsn):
    with dashboard_client(pgflow_dsn) as client:
        css = client.get("/static/dashboard.css")
        page = client.get("/")

    assert css.status_code == 200 and "svg.dag" in css.text
    assert '<link rel="stylesheet" href="/static/dashboard.css">' in page.text
    assert "No run matches." in page.text


def test_an_operator_role_can_read_every_page(pgflow_dsn, pgflow_conn, login_role):
    runs = make_every_status(pgflow_conn)
    dsn = login_role("pgflow_operator")

    with dashboard_client(dsn) as client:
        answers = {
            path: client.get(path)
            for path in ("/", "/workers", "/flows", "/flows/checkout", "/attention", "/metrics")
        }
        answers |= {name: client.get(f"/runs/{run_id}") for name, run_id in runs.items()}
        listing = answers["/"].text

    assert {path: a.status_code for path, a in answers.items() if a.status_code != 200} == {}
    # The retry's due time comes through pgflow.get_message_due_in: no pgmq privilege needed.
    assert "retrying charge (attempt 2 of 3, next in " in listing
    # The queue gauges come through pgflow.get_queue_stats, likewise.
    assert 'pgflow_queue_messages{flow="checkout"}' in answers["/metrics"].text


def test_pages_forbid_framing_and_scripts(pgflow_dsn):
    with dashboard_client(pgflow_dsn) as client:
        page = client.get("/")

    policy = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src" not in policy
    assert "default-src 'none'" in policy
    assert page.headers["x-frame-options"] == "DENY"
    assert "<script" not in page.text
