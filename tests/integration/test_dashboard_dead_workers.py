"""Tasks held by a dead worker do not look like running work on the dashboard.

A worker is dead when its heartbeat is older than the threshold (60 s, on the database
clock) or it stopped while holding tasks: the runs list says how many tasks it holds, and
the run page marks them (the worker column, a note at the top, the timeline bars).
"""

from __future__ import annotations

import html
import re

from tests.integration.test_dashboard_pages import BAR, listed
from tests.integration.test_dashboard_runs import (
    claim,
    complete_claimed,
    dashboard_client,
    define_flows,
    start,
)

TASK_ROW = re.compile(
    r'<tr class="task([^"]*)" data-step="(\w+)" data-task="(\d+)">(.*?)</tr>', re.S
)
NOTE = re.compile(r'<p class="dead-note" id="dead-worker">(.*?)</p>', re.S)


def worker_of(conn, run_id: str, task_index: int) -> str:
    return str(
        conn.execute(
            "select last_worker_id from pgflow.step_tasks where run_id = %s and task_index = %s",
            (run_id, task_index),
        ).fetchone()[0]
    )


def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def test_tasks_of_a_dead_worker_are_said_and_marked(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "batch", list(range(7)))
    complete_claimed(pgflow_conn, claim(pgflow_conn, "batch", 2))
    held = claim(pgflow_conn, "batch", 3)  # by one worker, whose heartbeat then stops
    alive = claim(pgflow_conn, "batch", 1)  # by another, still beating
    dead = worker_of(pgflow_conn, run_id, held[0][2])
    pgflow_conn.execute(
        "update pgflow.workers set last_heartbeat_at = now() - interval '5 min'"
        " where worker_id = %s",
        (dead,),
    )
    held_indexes = sorted(str(index) for *_, index in held)

    with dashboard_client(pgflow_dsn) as client:
        sentence = listed(client.get("/").text)[run_id]
        page = client.get(f"/runs/{run_id}").text

    assert sentence == (
        "running items: 2 of 7 tasks, 3 held by a dead worker (awaiting the stalled-task sweep)"
    )
    note = NOTE.search(page)
    assert note is not None
    said = text(note.group(1))
    assert said.startswith("3 tasks are held by a dead worker: no heartbeat for 5 min")
    assert "the stalled-task sweep requeues them from" in said.lower()
    rows = {index: (classes, cells) for classes, _, index, cells in TASK_ROW.findall(page)}
    marked = sorted(index for index, (classes, _) in rows.items() if "dead-worker" in classes)
    assert marked == held_indexes
    for index in held_indexes:
        assert '<span class="badge dead"' in rows[index][1]
        assert "no heartbeat for 5 min" in text(rows[index][1])
    assert '<span class="badge dead"' not in rows[str(alive[0][2])][1]
    outcomes = {task: outcome for _, task, _, outcome in BAR.findall(page)}
    assert sorted(t for t, o in outcomes.items() if o == "held") == held_indexes
    assert outcomes[str(alive[0][2])] == "running"
    assert "held by a dead worker" in page


def test_a_stopped_worker_still_holding_tasks_counts_as_dead(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "checkout")
    [task] = claim(pgflow_conn, "checkout")
    # It stopped (its shutdown grace ran out) without reporting the task: no heartbeat
    # is missing yet, but nobody will report the task.
    pgflow_conn.execute(
        "update pgflow.workers set stopped_at = now() where worker_id = %s",
        (worker_of(pgflow_conn, run_id, task[2]),),
    )

    with dashboard_client(pgflow_dsn) as client:
        sentence = listed(client.get("/").text)[run_id]
        page = client.get(f"/runs/{run_id}").text

    assert sentence == "running charge: held by a dead worker (awaiting the stalled-task sweep)"
    assert text(NOTE.search(page).group(1)).startswith(
        "1 task is held by a stopped worker: it stopped without finishing it"
    )
    assert [o for *_, o in BAR.findall(page)] == ["held"]


def test_a_live_worker_with_a_recent_heartbeat_is_not_dead(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "checkout")
    [task] = claim(pgflow_conn, "checkout")
    pgflow_conn.execute(
        "update pgflow.workers set last_heartbeat_at = now() - interval '50 s'"
        " where worker_id = %s",
        (worker_of(pgflow_conn, run_id, task[2]),),
    )

    with dashboard_client(pgflow_dsn) as client:
        sentence = listed(client.get("/").text)[run_id]
        page = client.get(f"/runs/{run_id}").text

    assert sentence == "running charge"
    assert NOTE.search(page) is None and "dead-worker" not in page
