"""start_flow with one idempotency key, called by several sessions at once.

Whatever the interleaving, exactly one call creates the run (duplicate false) and every
other one returns that same run with duplicate true, and the database holds one run, one
set of step states, one set of root tasks and exactly one message per root task. Three
interleavings: 8 calls released together by a barrier, each in its own transaction; the
first start holding its transaction open while the others are seen waiting for it on the
unique index, then committing; the same, rolling back (then one of the waiters creates
the run). (The sequential cases: sql_tests/start_flow/.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack

import psycopg
import pytest

from tests.integration.keyed_sessions import Started, start, together, waits_on
from tests.integration.sessions import Background, connect

FLOW = "order"
KEY = "order-42"
CALLERS = 8


@pytest.fixture
def flow(pgflow_conn: psycopg.Connection) -> psycopg.Connection:
    """Flow `order`: two root steps (charge, notify) and ship after both."""
    pgflow_conn.execute("select pgflow.create_flow(%s)", (FLOW,))
    pgflow_conn.execute("select pgflow.add_step(%s, 'charge')", (FLOW,))
    pgflow_conn.execute("select pgflow.add_step(%s, 'notify')", (FLOW,))
    pgflow_conn.execute("select pgflow.add_step(%s, 'ship', array['charge', 'notify'])", (FLOW,))
    return pgflow_conn


def keyed_start(caller: int) -> Callable[[psycopg.Connection], Started]:
    """The call of one caller: its own input, the shared key."""
    return lambda conn: start(conn, FLOW, {"id": 42, "caller": caller}, idempotency_key=KEY)


def assert_one_run_written(conn: psycopg.Connection, run_id: str) -> None:
    """One run, its 3 step states, its 2 root tasks, one message per root task, one start."""
    runs = conn.execute(
        "select run_id::text, idempotency_key, status from pgflow.runs where flow_slug = %s",
        (FLOW,),
    ).fetchall()
    assert runs == [(run_id, KEY, "started")]
    states = conn.execute(
        "select step_slug, status from pgflow.step_states order by step_slug"
    ).fetchall()
    assert states == [("charge", "started"), ("notify", "started"), ("ship", "created")]
    tasks = conn.execute(
        "select step_slug, task_index, status, message_id from pgflow.step_tasks"
        " where run_id = %s order by step_slug",
        (run_id,),
    ).fetchall()
    assert [(t[0], t[1], t[2]) for t in tasks] == [("charge", 0, "queued"), ("notify", 0, "queued")]
    assert conn.execute("select count(*) from pgflow.step_tasks").fetchone() == (2,)
    messages = conn.execute(
        f"select msg_id, message->>'run_id', message->>'step_slug',"
        f" (message->>'task_index')::int from pgmq.q_{FLOW} order by msg_id"
    ).fetchall()
    assert sorted((m[0], m[2], m[3]) for m in messages) == sorted((t[3], t[0], t[1]) for t in tasks)
    assert {m[1] for m in messages} == {run_id}
    events = Counter(
        (e[0], e[1])
        for e in conn.execute("select event, step_slug from pgflow.run_events").fetchall()
    )
    assert events == Counter(
        {("run:started", None): 1, ("step:started", "charge"): 1, ("step:started", "notify"): 1}
    )


def run_input(conn: psycopg.Connection, run_id: str) -> object:
    row = conn.execute("select input from pgflow.runs where run_id = %s", (run_id,)).fetchone()
    assert row is not None
    return row[0]


def test_eight_starts_released_together_make_one_run(
    flow: psycopg.Connection, pgflow_dsn: str
) -> None:
    outcomes = together(pgflow_dsn, [keyed_start(i) for i in range(CALLERS)])

    assert [o.error for o in outcomes] == [None] * CALLERS
    results: list[Started] = [o.result for o in outcomes]
    run_ids = {r.run_id for r in results}
    assert len(run_ids) == 1
    (run_id,) = run_ids
    assert sorted(r.duplicate for r in results) == [False] + [True] * (CALLERS - 1)
    assert {r.status for r in results} == {"started"}
    creator = next(i for i, r in enumerate(results) if not r.duplicate)
    assert run_input(flow, run_id) == {"id": 42, "caller": creator}
    assert_one_run_written(flow, run_id)

    # A later call, other input: the same run, nothing written.
    again = start(flow, FLOW, {"id": 43}, idempotency_key=KEY)
    assert again == Started(run_id, "started", True)
    assert_one_run_written(flow, run_id)


def waiting_starts(
    dsn: str, holder: psycopg.Connection, observer: psycopg.Connection, stack: ExitStack
) -> list[Background]:
    """CALLERS - 1 starts with the key, each seen waiting for the holder's insert."""
    jobs = []
    for i in range(1, CALLERS):
        job = Background(stack.enter_context(connect(dsn, autocommit=True)), keyed_start(i))
        # the unique index on (flow_slug, idempotency_key): the insert waits for the
        # holder's transaction to end
        waits_on(observer, job, holder, "transactionid")
        jobs.append(job)
    return jobs


def test_starts_waiting_on_an_open_start_that_commits_return_its_run(
    flow: psycopg.Connection, pgflow_dsn: str
) -> None:
    with ExitStack() as stack:
        holder = stack.enter_context(connect(pgflow_dsn, autocommit=False))
        first = keyed_start(0)(holder)
        assert (first.status, first.duplicate) == ("started", False)  # not committed
        jobs = waiting_starts(pgflow_dsn, holder, flow, stack)
        holder.commit()
        results = [job.join() for job in jobs]

    assert results == [Started(first.run_id, "started", True)] * (CALLERS - 1)
    assert run_input(flow, first.run_id) == {"id": 42, "caller": 0}
    assert_one_run_written(flow, first.run_id)


def test_starts_waiting_on_an_open_start_that_rolls_back_make_one_run(
    flow: psycopg.Connection, pgflow_dsn: str
) -> None:
    with ExitStack() as stack:
        holder = stack.enter_context(connect(pgflow_dsn, autocommit=False))
        first = keyed_start(0)(holder)
        assert first.duplicate is False
        jobs = waiting_starts(pgflow_dsn, holder, flow, stack)
        holder.rollback()
        results: list[Started] = [job.join() for job in jobs]

    run_ids = {r.run_id for r in results}
    assert len(run_ids) == 1
    (run_id,) = run_ids
    assert run_id != first.run_id  # the holder's run is gone
    # exactly one waiter created the run; the others got it as a duplicate
    assert sorted(r.duplicate for r in results) == [False] + [True] * (CALLERS - 2)
    creator = 1 + next(i for i, r in enumerate(results) if not r.duplicate)
    assert run_input(flow, run_id) == {"id": 42, "caller": creator}
    assert_one_run_written(flow, run_id)
