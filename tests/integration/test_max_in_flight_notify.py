"""A held message released by max_in_flight wakes listening workers: with the flow's NOTIFY
enabled (``pgflow.enable_flow_notify``), a release that makes a held message visible sends
pgmq's insert notification (``pgmq.q_<flow>.INSERT``) at commit; a completion that makes no
held message visible sends none.

pgmq's own NOTIFY fires on inserts only, and a release only changes a message's visibility
time, so without this a worker waiting on LISTEN would only see the released message at its
next poll. Every wait here is bounded: a notification either arrives within a generous
timeout (5 s) or not (1 s for the cases where none may come); nothing measures how long the
engine takes.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from psycopg.types.json import Jsonb

from pgflow.worker.queries import listen_statement, notify_channel
from tests.integration.keyed_sessions import Claimed, claim, complete, register
from tests.integration.sessions import connect

FLOW = "mfn"
#: Generous bound for a notification that must come.
ARRIVES_WITHIN = 5.0
#: Bound for a notification that must not come.
SILENT_FOR = 1.0


def notifications(listener: psycopg.Connection, timeout: float) -> list[psycopg.Notify]:
    """The notifications the listener receives within timeout seconds (stops at the first)."""
    return list(listener.notifies(timeout=timeout, stop_after=1))


def held_count(conn: psycopg.Connection) -> int:
    row = conn.execute(
        "select count(*) from pgflow.throttled_messages where flow_slug = %s", (FLOW,)
    ).fetchone()
    assert row is not None
    return int(row[0])


def visible_items(conn: psycopg.Connection) -> int:
    """Messages of queued items tasks a reader could receive now."""
    row = conn.execute(
        "select count(*) from pgmq.q_mfn as q"
        " join pgflow.step_tasks as t on t.message_id = q.msg_id"
        " where t.step_slug = 'items' and t.status = 'queued' and q.vt <= clock_timestamp()"
    ).fetchone()
    assert row is not None
    return int(row[0])


@pytest.fixture
def setup(pgflow_dsn: str) -> Iterator[tuple[psycopg.Connection, psycopg.Connection, str]]:
    """Flow mfn (map items with max_in_flight 1, root solo) with NOTIFY enabled; a run over
    [0, 1, 2] claimed once (items 0 and solo started, items 1 and 2 held); a listener on the
    flow's channel, listening only after all that committed. Yields (worker, listener, run)."""
    with (
        connect(pgflow_dsn, autocommit=True) as worker,
        connect(pgflow_dsn, autocommit=True) as listener,
    ):
        worker.execute("select pgflow.create_flow(%s, max_attempts => 1)", (FLOW,))
        worker.execute(
            "select pgflow.add_step(%s, 'items', step_type => 'map', max_in_flight => 1)", (FLOW,)
        )
        worker.execute("select pgflow.add_step(%s, 'solo')", (FLOW,))
        enabled = worker.execute("select pgflow.enable_flow_notify(%s)", (FLOW,)).fetchone()
        assert enabled == (True,)
        row = worker.execute(
            "select run_id::text from pgflow.start_flow(%s, %s)", (FLOW, Jsonb([0, 1, 2]))
        ).fetchone()
        assert row is not None
        worker_id = register(worker, FLOW)
        started = claim(worker, FLOW, worker_id, qty=10)
        assert sorted((t.step_slug, t.task_index) for t in started) == [("items", 0), ("solo", 0)]
        assert held_count(worker) == 2
        listener.execute(listen_statement(FLOW))
        assert notifications(listener, 0.01) == []  # nothing pending from the setup
        yield worker, listener, str(row[0])


def task(run_id: str, step_slug: str, task_index: int, attempt: int = 1) -> Claimed:
    return Claimed(run_id, step_slug, task_index, attempt, None, None)


def test_completing_a_task_that_releases_a_held_message_notifies_at_commit(
    pgflow_dsn: str, setup: tuple[psycopg.Connection, psycopg.Connection, str]
) -> None:
    _, listener, run_id = setup
    with connect(pgflow_dsn, autocommit=False) as reporter:
        assert complete(reporter, task(run_id, "items", 0), 0) == "completed"
        assert notifications(listener, SILENT_FOR) == [], "notified before the commit"
        reporter.commit()

    received = notifications(listener, ARRIVES_WITHIN)

    assert [n.channel for n in received] == [notify_channel(FLOW)]
    assert received[0].channel == f"pgmq.q_{FLOW}.INSERT"
    assert visible_items(listener) == 1, "one held message was made visible"
    assert held_count(listener) == 1


def test_a_completion_that_releases_nothing_does_not_notify(
    setup: tuple[psycopg.Connection, psycopg.Connection, str],
) -> None:
    worker, listener, run_id = setup

    # solo is not limited and has no dependents: nothing is released, nothing is sent
    assert complete(worker, task(run_id, "solo", 0), "done") == "completed"

    assert notifications(listener, SILENT_FOR) == []
    assert held_count(worker) == 2
    assert visible_items(worker) == 0


def test_a_release_that_can_make_no_message_visible_does_not_notify(
    setup: tuple[psycopg.Connection, psycopg.Connection, str],
) -> None:
    worker, listener, run_id = setup
    # the run is paused: its held items 1 and 2 are parked (their messages left the queue)
    worker.execute("select pgflow.pause_run(%s, 'ops', 'hold')", (run_id,))

    # items 0 frees the slot, but no held message can be made visible
    assert complete(worker, task(run_id, "items", 0), 0) == "completed"

    assert notifications(listener, SILENT_FOR) == []
    assert visible_items(worker) == 0


def test_the_released_message_is_claimed_by_the_woken_worker(
    setup: tuple[psycopg.Connection, psycopg.Connection, str],
) -> None:
    worker, listener, run_id = setup
    complete(worker, task(run_id, "items", 0), 0)
    assert len(notifications(listener, ARRIVES_WITHIN)) == 1

    claimed = claim(worker, FLOW, register(worker, FLOW), qty=10)

    assert [(t.step_slug, t.task_index) for t in claimed] == [("items", 1)]
