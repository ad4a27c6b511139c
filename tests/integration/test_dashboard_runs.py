"""The runs list's read layer (pgflow.observe.runs) against a real database.

Every run status and its sentence (exact strings), the filters combined, keyset
pagination. The scenario builders here serve the dashboard's page tests too.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import psycopg
import pytest
from psycopg.types.json import Jsonb

from pgflow.observe.run_words import format_time
from pgflow.observe.runs import RunFilters, list_runs

# ---------------------------------------------------------------- scenario builders


def define_flows(conn: psycopg.Connection) -> None:
    """Flows for every kind of sentence.

    - ``checkout``: ``charge`` (max_attempts 3, base_delay 20) then ``ship``;
    - ``batch``: root map step ``items``;
    - ``approval``: ``approve`` waits for signal ``approved``;
    - ``limited``: one step ``work``, concurrency_limit 1.
    """
    conn.execute("select pgflow.create_flow('checkout', max_attempts => 3, base_delay => 20)")
    conn.execute("select pgflow.add_step('checkout', 'charge')")
    conn.execute("select pgflow.add_step('checkout', 'ship', array['charge'])")
    conn.execute("select pgflow.create_flow('batch')")
    conn.execute("select pgflow.add_step('batch', 'items', step_type => 'map')")
    conn.execute("select pgflow.create_flow('approval')")
    conn.execute("select pgflow.add_step('approval', 'approve')")
    conn.execute("select pgflow.add_wait('approval', 'approve', 'approved')")
    conn.execute("select pgflow.create_flow('limited', concurrency_limit => 1)")
    conn.execute("select pgflow.add_step('limited', 'work')")


def start(conn: psycopg.Connection, flow: str, value: object = None, **keys: str) -> str:
    row = conn.execute(
        "select run_id from pgflow.start_flow(%s, %s, concurrency_key => %s)",
        (flow, Jsonb({} if value is None else value), keys.get("concurrency_key")),
    ).fetchone()
    assert row is not None
    return str(row[0])


def claim(conn: psycopg.Connection, flow: str, count: int = 1) -> list[tuple]:
    """Claim up to ``count`` visible tasks of ``flow`` as a registered worker."""
    worker_id = uuid.uuid4()
    conn.execute("select pgflow.register_worker(%s, %s, 'dashboard-test')", (worker_id, flow))
    read = conn.execute("select msg_id from pgmq.read(%s, 30, %s)", (flow, count))
    msg_ids = [row[0] for row in read]
    return conn.execute(
        "select run_id, step_slug, task_index from pgflow.start_tasks(%s, %s, %s)",
        (flow, msg_ids, worker_id),
    ).fetchall()


def complete_claimed(conn: psycopg.Connection, tasks: list[tuple]) -> None:
    for run_id, step_slug, task_index in tasks:
        conn.execute(
            "select pgflow.complete_task(%s, %s, %s, %s)",
            (run_id, step_slug, task_index, Jsonb({"ok": True})),
        )


def fail_claimed(conn: psycopg.Connection, tasks: list[tuple], error: str) -> None:
    for run_id, step_slug, task_index in tasks:
        conn.execute(
            "select pgflow.fail_task(%s, %s, %s, %s)", (run_id, step_slug, task_index, error)
        )


def make_every_status(conn: psycopg.Connection) -> dict[str, str]:
    """One run per kind of sentence; returns their ids by name (autocommit ``conn``)."""
    define_flows(conn)
    runs: dict[str, str] = {}
    runs["completed"] = start(conn, "checkout", {"order": 1})
    complete_claimed(conn, claim(conn, "checkout"))
    complete_claimed(conn, claim(conn, "checkout"))
    conn.execute(
        "update pgflow.runs set completed_at = started_at + interval '4.2 s' where run_id = %s",
        (runs["completed"],),
    )
    runs["failed"] = start(conn, "checkout", {"order": 2})
    for _ in range(3):
        conn.execute("update pgmq.q_checkout set vt = now() where true")
        fail_claimed(conn, claim(conn, "checkout"), "CardDeclined: card 4242 declined")
    runs["retrying"] = start(conn, "checkout", {"order": 3})
    fail_claimed(conn, claim(conn, "checkout"), "TimeoutError: gateway took too long")
    runs["running"] = start(conn, "batch", list(range(5)))
    complete_claimed(conn, claim(conn, "batch", 2))
    runs["waiting"] = start(conn, "approval")
    runs["holding"] = start(conn, "limited", concurrency_key="k")
    runs["queued_1"] = start(conn, "limited", concurrency_key="k")
    runs["queued_2"] = start(conn, "limited", concurrency_key="k")
    runs["paused"] = start(conn, "batch", [1])
    conn.execute("select pgflow.pause_run(%s, 'alice', 'checking data')", (runs["paused"],))
    runs["cancelled"] = start(conn, "batch", [1])
    conn.execute("select pgflow.cancel_run(%s, 'bob', 'duplicate order')", (runs["cancelled"],))
    runs["expired"] = start(conn, "batch", [1])
    conn.execute(
        "update pgflow.runs set deadline = now() - interval '1 s' where run_id = %s",
        (runs["expired"],),
    )
    conn.execute("select * from pgflow.tick()")
    return runs


def all_runs(conn: psycopg.Connection, filters: RunFilters | None = None, **kw):
    return list_runs(conn, filters or RunFilters(), **kw).runs


# ---------------------------------------------------------------- sentences


def test_every_status_is_said_in_words(pgflow_dsn, pgflow_conn):
    runs = make_every_status(pgflow_conn)
    # One transaction: the timestamps set here and the page share now(), so the ages are exact.
    with psycopg.connect(pgflow_dsn) as conn:
        conn.execute("update pgmq.q_checkout set vt = now() + interval '40 s' where true")
        conn.execute("update pgflow.wait_states set waiting_since = now() - interval '3 h'")
        page = {run.run_id: run for run in all_runs(conn)}
        deadline = conn.execute(
            "select deadline from pgflow.runs where run_id = %s", (runs["expired"],)
        ).fetchone()[0]

    said = {name: page[run_id].activity for name, run_id in runs.items()}
    assert said == {
        "completed": "completed in 4.2 s",
        "failed": "failed at charge: CardDeclined",
        "retrying": "retrying charge (attempt 2 of 3, next in 40 s): TimeoutError",
        "running": "running items: 2 of 5 tasks",
        "waiting": "waiting for signal approved since 3 h",
        "holding": "running work",
        "queued_1": "queued behind 1 run (key k)",
        "queued_2": "queued behind 2 runs (key k)",
        "paused": "paused by alice: checking data",
        "cancelled": "cancelled by bob: duplicate order",
        "expired": f"expired (deadline {format_time(deadline)})",
    }
    assert page[runs["failed"]].error == "CardDeclined: card 4242 declined"
    assert page[runs["retrying"]].error == "TimeoutError: gateway took too long"


def test_a_retry_already_due_says_due_now_and_other_retrying_tasks_are_counted(pgflow_conn):
    define_flows(pgflow_conn)
    run_id = start(pgflow_conn, "batch", [1, 2, 3])
    pgflow_conn.execute("update pgflow.flows set opt_max_attempts = 2 where flow_slug = 'batch'")
    fail_claimed(pgflow_conn, claim(pgflow_conn, "batch", 3), "ValueError: bad item")
    pgflow_conn.execute("update pgmq.q_batch set vt = now() - interval '1 s' where true")

    [run] = all_runs(pgflow_conn)

    assert run.run_id == run_id
    assert run.activity == (
        "retrying items (attempt 2 of 2, due now): ValueError (+2 more tasks retrying)"
    )


# ---------------------------------------------------------------- filters and pages


def test_filters_combine(pgflow_conn):
    runs = make_every_status(pgflow_conn)

    def ids(**filters):
        return {run.run_id for run in all_runs(pgflow_conn, RunFilters(**filters))}

    assert ids(flow="limited") == {runs["holding"], runs["queued_1"], runs["queued_2"]}
    assert ids(flow="limited", status="queued") == {runs["queued_1"], runs["queued_2"]}
    assert ids(status="failed") == {runs["failed"]}
    assert ids(step="charge") == {runs["failed"], runs["retrying"]}
    assert ids(step="charge", status="started") == {runs["retrying"]}
    assert ids(step="ship") == set()  # completed steps are not current
    assert ids(step="items", status="started") == {runs["running"]}
    assert ids(error="gateway TOOK") == {runs["retrying"]}
    assert ids(error="declined", flow="checkout") == {runs["failed"]}
    assert ids(error="declined", flow="batch") == set()


def test_time_range_filters_on_the_start_time(pgflow_conn):
    define_flows(pgflow_conn)
    old = start(pgflow_conn, "batch", [1])
    new = start(pgflow_conn, "batch", [1])
    pgflow_conn.execute(
        "update pgflow.runs set started_at = started_at - interval '2 days' where run_id = %s",
        (old,),
    )
    now = pgflow_conn.execute("select now()").fetchone()[0]

    def ids(**filters):
        return [run.run_id for run in all_runs(pgflow_conn, RunFilters(**filters))]

    assert ids(started_from=now - timedelta(days=1)) == [new]
    assert ids(started_to=now - timedelta(days=1)) == [old]
    assert ids(started_from=now - timedelta(days=3), started_to=now + timedelta(hours=1)) == [
        new,
        old,
    ]


def test_pages_are_keyset_newest_first_and_ties_break_on_run_id(pgflow_conn):
    define_flows(pgflow_conn)
    made = [start(pgflow_conn, "batch", [1]) for _ in range(7)]
    # Two runs share a start time: the run id decides their order.
    pgflow_conn.execute(
        "update pgflow.runs set started_at = (select started_at from pgflow.runs where run_id = %s)"
        " where run_id = %s",
        (made[3], made[4]),
    )
    expected = [
        str(r[0])
        for r in pgflow_conn.execute(
            "select run_id from pgflow.runs order by started_at desc, run_id desc"
        )
    ]

    seen, cursor, pages = [], None, 0
    while True:
        page = list_runs(pgflow_conn, RunFilters(), cursor=cursor, limit=3)
        seen += [run.run_id for run in page.runs]
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            break

    assert seen == expected
    assert pages == 3
    assert sorted(seen) == sorted(made)


def test_the_last_full_page_has_no_next_cursor(pgflow_conn):
    define_flows(pgflow_conn)
    for _ in range(3):
        start(pgflow_conn, "batch", [1])

    page = list_runs(pgflow_conn, RunFilters(), limit=3)

    assert len(page.runs) == 3
    assert page.next_cursor is None
    with pytest.raises(ValueError):
        list_runs(pgflow_conn, RunFilters(), limit=0)


# ---------------------------------------------------------------- the app, for the page tests


def dashboard_client(dsn: str, **settings):
    """A TestClient of a dashboard on ``dsn`` (use it as a context manager).

    Requests look like a browser's on the dashboard itself (Origin of the test server).
    """
    import warnings

    with warnings.catch_warnings():
        # Starlette 1.x prefers the httpx2 package for its TestClient; httpx works the same.
        warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient

    from pgflow.dashboard import Settings, create_app

    app = create_app(Settings(dsn=dsn, **settings))
    return TestClient(app, headers={"Origin": "http://testserver"}, follow_redirects=False)
