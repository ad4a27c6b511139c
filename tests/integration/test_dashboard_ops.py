"""The dashboard's Workers, Flows and Needs-attention pages, group actions, and /metrics."""

from __future__ import annotations

import html
import re
import uuid

from prometheus_client.parser import text_string_to_metric_families

from tests.integration.test_dashboard_actions import AUTH, FLASH, failed_checkout, status_of
from tests.integration.test_dashboard_auth import CSRF
from tests.integration.test_dashboard_runs import (
    claim,
    dashboard_client,
    define_flows,
    make_every_status,
    start,
)


def test_dead_workers_are_shown_with_the_tasks_they_hold(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "batch", [1, 2])
    [(_, step, index)] = claim(pgflow_conn, "batch", 1)
    dead = pgflow_conn.execute(
        "select last_worker_id from pgflow.step_tasks where run_id = %s and task_index = %s",
        (run_id, index),
    ).fetchone()[0]
    pgflow_conn.execute(
        "update pgflow.workers set last_heartbeat_at = now() - interval '5 min'"
        " where worker_id = %s",
        (dead,),
    )
    live = uuid.uuid4()
    pgflow_conn.execute("select pgflow.register_worker(%s, 'batch', 'fresh-fn')", (live,))

    with dashboard_client(pgflow_dsn) as client:
        page = client.get("/workers").text

    assert f'data-worker-id="{dead}" data-state="dead"' in page
    assert f'data-worker-id="{live}" data-state="live"' in page
    assert re.search(rf'<tr class="worker dead" data-worker-id="{dead}"', page)
    held = re.search(rf'<tr class="held dead" data-run-id="{run_id}">(.*?)</tr>', page, re.S)
    assert held and f"{step}[{index}] attempt 1" in held.group(1)
    assert "1 live, 1 dead" in page


def test_flows_and_a_flow_page_with_rates_and_the_chart(pgflow_dsn, pgflow_conn):
    make_every_status(pgflow_conn)

    with dashboard_client(pgflow_dsn) as client:
        flows = client.get("/flows").text
        flow = client.get("/flows/checkout?window=24h").text
        hour = client.get("/flows/checkout?window=1h").text
        missing = client.get("/flows/nope")

    assert re.search(r'<tr class="flow" data-flow="checkout">', flows)
    assert 'href="/?flow=checkout&amp;status=failed">1</a>' in flows
    charge = re.search(r'<tr class="step-stats" data-step="charge">(.*?)</tr>', flow, re.S).group(1)
    assert '<td class="failure-rate">50.0 %</td>' in charge
    assert '<td class="retry-rate">50.0 %</td>' in charge
    assert flow.count('<g class="bucket"') in (24, 25)  # the open hour may start a new bucket
    assert hour.count('<g class="bucket"') in (12, 13)
    assert missing.status_code == 404


def test_needs_attention_groups_failures_and_stuck_runs_and_retries_a_group(
    pgflow_dsn, pgflow_conn
):
    define_flows(pgflow_conn)
    failed = [failed_checkout(pgflow_conn) for _ in range(2)]
    paused = start(pgflow_conn, "batch", [1])
    pgflow_conn.execute("select pgflow.pause_run(%s, 'alice', 'hold on')", (paused,))

    with dashboard_client(pgflow_dsn, basic_auth=("alice", "s3cret")) as client:
        page = client.get("/attention", headers=AUTH).text
        group = re.search(
            r'<tr class="group" data-flow="checkout" data-step="charge"'
            r' data-error="CardDeclined">(.*?)</tr>',
            page,
            re.S,
        )
        csrf = CSRF.search(page).group(1)
        form = {"csrf": csrf, "group": "failed", "flow": "checkout", "step": "charge"}
        retried = client.post(
            "/attention/act",
            data={**form, "error_key": "CardDeclined", "verb": "retry", "reason": "gateway ok"},
            headers=AUTH,
        )
        after_retry = client.get("/attention", headers=AUTH).text
        resumed = client.post(
            "/attention/act",
            data={"csrf": csrf, "group": "paused", "verb": "resume", "reason": "go on"},
            headers=AUTH,
        )
        after_resume = client.get("/attention", headers=AUTH).text

    assert group is not None
    assert (
        '<td class="count"><a href="/?flow=checkout&amp;status=failed&amp;step=charge'
        '&amp;error=CardDeclined">2</a>' in (group.group(1))
    )
    assert 'data-reason="paused"' in page and f'data-run-id="{paused}"' in page
    assert retried.status_code == 303 and resumed.status_code == 303
    assert FLASH.search(after_retry).groups() == ("ok", "retry 2 runs: 2 done")
    assert FLASH.search(after_resume).groups() == ("ok", "resume 1 run: 1 done")
    assert [status_of(pgflow_conn, r) for r in failed] == ["started", "started"]
    assert status_of(pgflow_conn, paused) == "started"
    actors = pgflow_conn.execute(
        "select distinct actor, reason from pgflow.run_events where event = 'run:retried'"
    ).fetchall()
    assert actors == [("dashboard:alice", "gateway ok")]


def test_a_group_action_acts_on_the_group_as_it_is_at_the_click(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    paused = [start(pgflow_conn, "batch", [n]) for n in range(2)]
    for run_id in paused:
        pgflow_conn.execute("select pgflow.pause_run(%s, 'alice', 'wait')", (run_id,))

    with dashboard_client(pgflow_dsn, basic_auth=("alice", "s3cret")) as client:
        csrf = CSRF.search(client.get("/attention", headers=AUTH).text).group(1)
        # One of them is resumed by someone else between the page and the click: the action
        # reads the group again, so it cancels only the run still paused.
        pgflow_conn.execute("select pgflow.resume_run(%s, 'bob', 'mine')", (paused[0],))
        client.post(
            "/attention/act",
            data={"csrf": csrf, "group": "paused", "verb": "cancel", "reason": "old"},
            headers=AUTH,
        )
        shown = client.get("/attention", headers=AUTH).text

    assert FLASH.search(shown).groups() == ("ok", "cancel 1 run: 1 done")
    assert [status_of(pgflow_conn, r) for r in paused] == ["started", "cancelled"]


def test_metrics_serve_the_database_gauges_without_auth(pgflow_dsn, pgflow_conn):
    make_every_status(pgflow_conn)

    with dashboard_client(pgflow_dsn, token="t0ken") as client:
        scraped = client.get("/metrics")
        refused = client.get("/")

    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain")
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(scraped.text)
        for s in family.samples
    }
    assert samples[("pgflow_up", ())] == 1
    assert samples[("pgflow_runs", (("flow", "checkout"), ("status", "failed")))] == 1
    assert samples[("pgflow_runs", (("flow", "limited"), ("status", "queued")))] == 2
    assert samples[("pgflow_stuck_runs", (("reason", "paused"),))] == 1
    assert refused.status_code == 303  # the pages still ask for the token
    assert html.unescape(refused.headers["location"]) == "/login?next=%2F"
