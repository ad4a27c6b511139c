"""The dashboard driven like a user, in headless Chromium (Debian's, through Playwright).

Log in with the token, list the runs, filter them, open a run, cancel it with a reason, and
see the audit row; then visit the other pages. Then a run retried after failures whose
task is held by a dead worker: the list says so, the run page shows the note, the earlier
failures with their traceback (a collapsible block), and the DAG of a flow whose edges skip
columns. A screenshot of each page is saved under test-artifacts/dashboard/ (or
$PGFLOW_TEST_ARTIFACTS/dashboard/).
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.dashboard_server import CHROMIUM_ARGS, artifacts_dir, chromium_path, serve_dashboard
from tests.integration.test_dashboard_runs import (
    claim,
    complete_claimed,
    fail_claimed,
    make_every_status,
    start,
)

pytestmark = pytest.mark.e2e


def test_list_filter_open_and_cancel_a_run_in_chromium(pgflow_dsn, pgflow_conn):
    executable = chromium_path()
    from playwright.sync_api import expect, sync_playwright

    runs = make_every_status(pgflow_conn)
    target = runs["running"]
    shots = artifacts_dir()

    with (
        serve_dashboard(pgflow_dsn, token="e2e-token", token_user="carol") as base,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(15_000)

            # Not logged in: the list sends us to the login form.
            page.goto(base + "/")
            expect(page).to_have_url(re.compile(r"/login\?next=%2F$"))
            page.fill("input[name=token]", "e2e-token")
            page.click("button[type=submit]")

            # The runs list, newest first, each run said in words.
            expect(page.locator("h1")).to_have_text("Runs")
            expect(page.locator("tr.run")).to_have_count(len(runs))
            expect(page.locator(f'tr[data-run-id="{runs["failed"]}"] td.activity')).to_have_text(
                "failed at charge: CardDeclined"
            )
            page.screenshot(path=str(shots / "01-runs.png"), full_page=True)

            # Filter: the started runs of flow batch.
            page.select_option("select[name=flow]", "batch")
            page.select_option("select[name=status]", "started")
            page.click("form.filters button[type=submit]")
            expect(page).to_have_url(re.compile(r"flow=batch.*status=started"))
            expect(page.locator("tr.run")).to_have_count(1)
            row = page.locator(f'tr[data-run-id="{target}"]')
            expect(row.locator("td.activity")).to_have_text("running items: 2 of 5 tasks")
            page.screenshot(path=str(shots / "02-runs-filtered.png"), full_page=True)

            # Open it: the DAG, the timeline, the actions.
            row.locator("a").click()
            expect(page).to_have_url(f"{base}/runs/{target}")
            expect(page.locator('svg.dag g.node[data-step="items"]')).to_have_attribute(
                "data-status", "started"
            )
            expect(page.locator("svg.timeline g.attempt")).to_have_count(5)
            page.screenshot(path=str(shots / "03-run.png"), full_page=True)

            # Cancel it with a reason.
            form = page.locator("form#action-cancel")
            form.locator("input[name=reason]").fill("wrong batch, e2e")
            form.locator("button[type=submit]").click()
            expect(page.locator("p.flash")).to_have_text("cancelled")
            expect(page.locator(".summary .status")).to_have_text("cancelled")
            audit = page.locator('tr.event[data-event="run:cancelled"]')
            expect(audit).to_have_count(1)
            expect(audit.locator("td.actor")).to_have_text("dashboard:carol")
            expect(audit.locator("td.reason")).to_have_text("wrong batch, e2e")
            page.screenshot(path=str(shots / "04-run-cancelled.png"), full_page=True)

            # The other pages, through the navigation bar.
            for n, (link, heading) in enumerate(
                [
                    ("Needs attention", "Needs attention"),
                    ("Workers", "Workers"),
                    ("Flows", "Flows"),
                ],
                start=5,
            ):
                page.click(f"header nav >> text={link}")
                expect(page.locator("h1")).to_have_text(heading)
                page.screenshot(path=str(shots / f"0{n}-{link.lower().replace(' ', '-')}.png"))
            page.click("table.flows >> text=checkout")
            expect(page.locator("h1")).to_have_text("Flow checkout")
            expect(page.locator("svg.bars g.bucket").first).to_be_attached()
            page.screenshot(path=str(shots / "08-flow.png"), full_page=True)
        finally:
            browser.close()

    status = pgflow_conn.execute("select status from pgflow.runs where run_id = %s", (target,))
    assert status.fetchone()[0] == "cancelled"
    names = ["01-runs", "02-runs-filtered", "03-run", "04-run-cancelled", "05-needs-attention"]
    for name in [*names, "06-workers", "07-flows", "08-flow"]:
        assert (shots / f"{name}.png").stat().st_size > 0


def retried_run_held_by_a_dead_worker(conn) -> str:
    """A run of a five-step flow (edges that skip columns, a long slug) whose step parse
    failed twice (the second failure with a traceback), was retried, and whose new attempt
    is held by a worker that stopped beating 5 minutes ago."""
    conn.execute("select pgflow.create_flow('pipeline', max_attempts => 2, base_delay => 1)")
    conn.execute("select pgflow.add_step('pipeline', 'fetch')")
    conn.execute("select pgflow.add_step('pipeline', 'audit_every_customer_address_record')")
    conn.execute("select pgflow.add_step('pipeline', 'parse', array['fetch'])")
    conn.execute("select pgflow.add_step('pipeline', 'enrich', array['parse'])")
    conn.execute(
        "select pgflow.add_step('pipeline', 'publish',"
        " array['enrich', 'fetch', 'audit_every_customer_address_record'])"
    )
    run_id = start(conn, "pipeline", {"day": "2024-05-01"})
    complete_claimed(conn, claim(conn, "pipeline", 2))
    for _ in range(2):
        conn.execute("update pgmq.q_pipeline set vt = now() where true")
        fail_claimed(conn, claim(conn, "pipeline"), "ValueError: row 17 has no date")
    conn.execute(
        "update pgflow.run_events"
        " set details = details || jsonb_build_object('traceback', %s::text)"
        " where run_id = %s and event = 'task:failed' and details ->> 'attempt' = '2'",
        (TRACEBACK, run_id),
    )
    conn.execute("select pgflow.retry_run(%s, 'alice', 'dates fixed')", (run_id,))
    [task] = claim(conn, "pipeline")
    conn.execute(
        "update pgflow.workers set last_heartbeat_at = now() - interval '5 min'"
        " where worker_id = (select last_worker_id from pgflow.step_tasks"
        "  where run_id = %s and step_slug = %s)",
        (run_id, task[1]),
    )
    return run_id


TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "pipeline.py", line 12, in parse\n'
    "    day = row['date']\n"
    "ValueError: row 17 has no date"
)


def test_a_retried_run_held_by_a_dead_worker_in_chromium(pgflow_dsn, pgflow_conn):
    executable = chromium_path()
    from playwright.sync_api import expect, sync_playwright

    run_id = retried_run_held_by_a_dead_worker(pgflow_conn)
    shots = artifacts_dir()

    with serve_dashboard(pgflow_dsn) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(15_000)

            page.goto(base + "/")
            expect(page.locator(f'tr[data-run-id="{run_id}"] td.activity')).to_have_text(
                "running parse: held by a dead worker (awaiting the stalled-task sweep)"
            )

            page.goto(f"{base}/runs/{run_id}")
            expect(page.locator("p.dead-note")).to_contain_text(
                "1 task is held by a dead worker: no heartbeat for 5 min"
            )
            expect(page.locator('tr.task.dead-worker[data-step="parse"] .badge.dead')).to_have_text(
                "dead"
            )
            # The timeline: the two attempts before the retry, the retry, the held one.
            expect(page.locator("svg.timeline g.attempt.before-retry")).to_have_count(2)
            expect(page.locator("svg.timeline g.retry-mark")).to_have_count(1)
            expect(page.locator('svg.timeline g.attempt[data-outcome="held"]')).to_have_count(1)
            # The DAG: edges that skip columns go around the boxes; the long slug is cut.
            expect(page.locator("svg.dag path.edge.long")).to_have_count(2)
            name = page.locator('svg.dag g.node[data-step="audit_every_customer_address_record"]')
            expect(name.locator("text.name title")).to_have_text(
                "audit_every_customer_address_record"
            )
            page.screenshot(path=str(shots / "09-run-retried-dead-worker.png"), full_page=True)

            # The earlier failures stay listed; the traceback opens on a click.
            failures = page.locator("#errors div.failure")
            expect(failures).to_have_count(2)
            expect(page.locator("#errors div.failure.before-retry")).to_have_count(2)
            traceback = failures.nth(1).locator("details.traceback")
            expect(traceback.locator("pre")).not_to_be_visible()
            traceback.locator("summary").click()
            expect(traceback.locator("pre")).to_be_visible()
            expect(traceback.locator("pre")).to_contain_text('File "pipeline.py", line 12')
            page.locator("#errors").screenshot(path=str(shots / "10-run-errors.png"))
        finally:
            browser.close()

    for name in ("09-run-retried-dead-worker", "10-run-errors"):
        assert (shots / f"{name}.png").stat().st_size > 0
