"""The run page's forms offer what the SQL accepts, and a rerun is not started twice.

- skip_step accepts a created or waiting step of a started or paused run (a failed step of
  a failed run): the skip form lists waiting steps too.
- The rerun form carries how many reruns of the run the page showed; posting it again
  after the rerun is refused ("already rerun as <short id>"), so a double click or a
  resubmitted form starts one new run, not two.
"""

from __future__ import annotations

import re

from tests.integration.test_dashboard_actions import (
    AUTH,
    FLASH,
    SEEN_RERUNS,
    act,
    client_for,
    failed_checkout,
    status_of,
)
from tests.integration.test_dashboard_auth import CSRF
from tests.integration.test_dashboard_runs import define_flows, start

SKIP_OPTIONS = re.compile(
    r'<form [^>]*id="action-skip">.*?<select name="step">(.*?)</select>', re.S
)


def reruns_of(conn, run_id: str) -> list[str]:
    rows = conn.execute(
        "select run_id::text from pgflow.runs where rerun_of = %s order by started_at", (run_id,)
    )
    return [row[0] for row in rows]


def test_the_skip_form_offers_a_waiting_step(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "approval")
    state = pgflow_conn.execute(
        "select status from pgflow.step_states where run_id = %s and step_slug = 'approve'",
        (run_id,),
    )
    assert state.fetchone()[0] == "waiting"

    with client_for(pgflow_dsn) as client:
        page = client.get(f"/runs/{run_id}", headers=AUTH).text
        options = SKIP_OPTIONS.search(page)
        skipped = act(
            client,
            run_id,
            "skip",
            reason="approved on paper",
            expected_status="started",
            step="approve",
        )

    assert options is not None
    assert re.findall(r'<option value="(\w+)">', options.group(1)) == ["approve"]
    assert skipped == ("ok", "skipped step approve: run now completed")
    assert status_of(pgflow_conn, run_id) == "completed"


def test_posting_the_rerun_form_twice_starts_one_new_run(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    old = failed_checkout(pgflow_conn)

    with client_for(pgflow_dsn) as client:
        page = client.get(f"/runs/{old}", headers=AUTH).text
        form = {
            "csrf": CSRF.search(page).group(1),
            "reason": "try again fresh",
            "expected_status": "failed",
            "seen_reruns": (SEEN_RERUNS.findall(page) or [""])[0],
        }
        first = client.post(f"/runs/{old}/rerun", data=form, headers=AUTH)
        first_flash = FLASH.search(client.get(f"/runs/{old}", headers=AUTH).text).groups()
        second = client.post(f"/runs/{old}/rerun", data=form, headers=AUTH)
        shown = client.get(f"/runs/{old}", headers=AUTH).text
        # The page now shows the rerun, so a new rerun from it is allowed.
        again = SEEN_RERUNS.search(shown).group(1)

    assert form["seen_reruns"] == "0" and again == "1"
    assert (first.status_code, second.status_code) == (303, 303)
    [new] = reruns_of(pgflow_conn, old)
    assert first_flash[0] == "ok" and new in first_flash[1]
    kind, text = FLASH.search(shown).groups()
    assert kind == "info"
    assert re.sub(r"<[^>]+>", "", text).strip() == f"already rerun as {new[:8]} — open"
    assert f'href="/runs/{new}"' in shown
    assert (
        len(
            pgflow_conn.execute(
                "select 1 from pgflow.run_events where run_id = %s and event = 'run:rerun'", (old,)
            ).fetchall()
        )
        == 1
    )


def test_a_rerun_form_without_the_count_it_saw_is_refused(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    old = failed_checkout(pgflow_conn)

    with client_for(pgflow_dsn) as client:
        refused = act(client, old, "rerun", reason="r", expected_status="failed", seen_reruns="")

    assert refused == ("error", "not done: the form did not say how many reruns you saw")
    assert reruns_of(pgflow_conn, old) == []


def test_a_queued_run_offers_no_rerun(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    start(pgflow_conn, "limited", concurrency_key="k")
    queued = start(pgflow_conn, "limited", concurrency_key="k")

    with client_for(pgflow_dsn) as client:
        page = client.get(f"/runs/{queued}", headers=AUTH).text

    assert 'id="action-cancel"' in page
    assert 'id="action-rerun"' not in page  # rerun_flow refuses a run that has not run
