"""Deadlines racing: the tick expires runs past their deadline while other sessions claim
and report their tasks, with a forced interleaving in both orders.

One session holds its transaction open after its call; the other call runs in a thread
(:class:`Background`) and is seen finished or waiting for a lock held by the first
(pg_stat_activity, pg_locks, pg_blocking_pids; never a sleep); then the first commits.
Time is moved by setting the stored deadline in the past. Whatever the order: every run
past its deadline ends expired exactly once (queued, started and paused alike), nothing
of it runs afterwards (tasks cancelled, messages archived), a report after the expiry
changes nothing, a report holding the run makes the tick skip it (SKIP LOCKED) until the
next tick, and the slot an expired run held goes to the next queued run.
"""

from __future__ import annotations

from collections import Counter

import psycopg
import pytest

from tests.integration.keyed_sessions import Claimed, claim, complete, register, start, waits_on
from tests.integration.sessions import Background, connect, wait_until_done_or_blocked

FLOW = "dl"
Tick = tuple[bool, int, int]


@pytest.fixture
def flow(pgflow_conn: psycopg.Connection) -> psycopg.Connection:
    """Flow `dl`: work, then after; one attempt; one started run per concurrency key."""
    pgflow_conn.execute(
        "select pgflow.create_flow(%s, max_attempts => 1, concurrency_limit => 1)", (FLOW,)
    )
    pgflow_conn.execute("select pgflow.add_step(%s, 'work')", (FLOW,))
    pgflow_conn.execute("select pgflow.add_step(%s, 'after', array['work'])", (FLOW,))
    return pgflow_conn


def tick(conn: psycopg.Connection) -> Tick:
    """(ran, expired_runs, started_queued_runs) of one pgflow.tick()."""
    row = conn.execute(
        "select ran, expired_runs, started_queued_runs from pgflow.tick()"
    ).fetchone()
    assert row is not None
    return bool(row[0]), int(row[1]), int(row[2])


def deadline_passed(conn: psycopg.Connection, *run_ids: str) -> None:
    conn.execute(
        "update pgflow.runs set deadline = now() - interval '1 second'"
        " where run_id = any(%s::uuid[])",
        (list(run_ids),),
    )


def run_status(conn: psycopg.Connection, run_id: str) -> str:
    row = conn.execute("select status from pgflow.runs where run_id = %s", (run_id,)).fetchone()
    assert row is not None
    return str(row[0])


def work_of(conn: psycopg.Connection, run_id: str) -> dict[str, tuple[str, str | None, int]]:
    """step_slug -> (step status, its task's status or None, the task's attempts_count)."""
    rows = conn.execute(
        "select ss.step_slug, ss.status, t.status, coalesce(t.attempts_count, 0)"
        " from pgflow.step_states as ss left join pgflow.step_tasks as t"
        " using (run_id, step_slug) where ss.run_id = %s",
        (run_id,),
    ).fetchall()
    return {str(r[0]): (str(r[1]), r[2], int(r[3])) for r in rows}


def events(conn: psycopg.Connection, run_id: str) -> Counter[tuple[str, str | None]]:
    rows = conn.execute(
        "select event, step_slug from pgflow.run_events where run_id = %s", (run_id,)
    ).fetchall()
    return Counter((str(r[0]), r[1]) for r in rows)


def expired_as(conn: psycopg.Connection, run_id: str) -> list[str]:
    """details.was of the run's run:expired events (one per expiry)."""
    rows = conn.execute(
        "select details->>'was' from pgflow.run_events where run_id = %s and event = 'run:expired'",
        (run_id,),
    ).fetchall()
    return [str(r[0]) for r in rows]


def messages_left(conn: psycopg.Connection) -> list[tuple[str, str]]:
    rows = conn.execute(
        f"select message->>'run_id', message->>'step_slug' from pgmq.q_{FLOW} order by msg_id"
    ).fetchall()
    return [(str(r[0]), str(r[1])) for r in rows]


def late_report_changes_nothing(conn: psycopg.Connection, task: Claimed, run_id: str) -> str:
    """Report the claim again after the expiry: nothing written; returns the task status."""
    before = (work_of(conn, run_id), events(conn, run_id), run_status(conn, run_id))
    status = complete(conn, task, "late")
    assert (work_of(conn, run_id), events(conn, run_id), run_status(conn, run_id)) == before
    return status


# ---------------------------------------------------------------- 1. every status, a claim racing


@pytest.mark.parametrize("first", ["claim", "tick"])
def test_the_tick_expires_queued_started_and_paused_runs_while_a_task_is_claimed(
    flow: psycopg.Connection, pgflow_dsn: str, first: str
) -> None:
    started = start(flow, FLOW, {"who": "a"}, concurrency_key="k").run_id
    queued = start(flow, FLOW, {"who": "b"}, concurrency_key="k")
    assert queued.status == "queued"
    paused = start(flow, FLOW, {"who": "p"}, concurrency_key="p").run_id
    flow.execute("select pgflow.pause_run(%s::uuid, 'ops', 'hold')", (paused,))
    deadline_passed(flow, started, queued.run_id, paused)

    with (
        connect(pgflow_dsn, autocommit=False) as worker,
        connect(pgflow_dsn, autocommit=False) as ticker,
    ):
        worker_id = register(worker, FLOW)
        worker.commit()
        if first == "claim":
            (task,) = claim(worker, FLOW, worker_id)  # the paused run's task is parked
            assert task.run_id == started  # claimed, not committed: the task row is held
            job = Background(ticker, tick)
            waits_on(flow, job, worker, "transactionid")  # cancelling the claimed task
            worker.commit()
            assert job.join() == (True, 3, 0)
            ticker.commit()
            assert late_report_changes_nothing(flow, task, started) == "cancelled"
        else:
            assert tick(ticker) == (True, 3, 0)  # not committed: the runs are held
            job = Background(worker, lambda c: claim(c, FLOW, worker_id))
            # the message is being archived by the tick: the read skips it (SKIP LOCKED)
            assert wait_until_done_or_blocked(flow, job) == "done"
            assert job.join() == []
            worker.commit()
            ticker.commit()

    attempts = 1 if first == "claim" else 0
    assert work_of(flow, started) == {
        "work": ("cancelled", "cancelled", attempts),
        "after": ("cancelled", None, 0),
    }
    assert work_of(flow, queued.run_id) == {
        "work": ("cancelled", None, 0),
        "after": ("cancelled", None, 0),
    }
    assert work_of(flow, paused)["work"] == ("cancelled", "cancelled", 0)
    for run_id, was in ((started, "started"), (queued.run_id, "queued"), (paused, "paused")):
        assert run_status(flow, run_id) == "expired"
        assert expired_as(flow, run_id) == [was]
    assert messages_left(flow) == []
    assert tick(flow) == (True, 0, 0)  # nothing twice; the expired queued run never started
    assert "run:started" not in {e for e, _ in events(flow, queued.run_id)}


# ---------------------------------------------------------------- 2. a report vs the tick


@pytest.mark.parametrize("first", ["report", "tick"])
def test_a_report_and_the_tick_racing_on_a_run_past_its_deadline(
    flow: psycopg.Connection, pgflow_dsn: str, first: str
) -> None:
    run_id = start(flow, FLOW, {"who": "r"}, concurrency_key="k").run_id
    next_run = start(flow, FLOW, {"who": "q"}, concurrency_key="k").run_id  # queued behind it
    (task,) = claim(flow, FLOW, register(flow, FLOW))
    deadline_passed(flow, run_id)

    with (
        connect(pgflow_dsn, autocommit=False) as reporter,
        connect(pgflow_dsn, autocommit=False) as ticker,
    ):
        if first == "report":
            assert complete(reporter, task, "done") == "completed"  # holds the run's row
            job = Background(ticker, tick)
            # the run is locked by the report: the tick skips it (SKIP LOCKED), nothing waits
            assert wait_until_done_or_blocked(flow, job) == "done"
            assert job.join() == (True, 0, 0)
            ticker.commit()
            assert run_status(flow, next_run) == "queued"
            reporter.commit()
            assert tick(ticker) == (True, 1, 0)  # the next tick expires it
            ticker.commit()
        else:
            assert tick(ticker) == (True, 1, 0)  # not committed: the run row is held
            job = Background(reporter, lambda c: complete(c, task, "done"))
            waits_on(flow, job, ticker, "transactionid")
            ticker.commit()
            assert job.join() == "cancelled"  # the report after the expiry: a no-op
            reporter.commit()

    assert run_status(flow, run_id) == "expired"
    assert expired_as(flow, run_id) == ["started"]
    work = "completed" if first == "report" else "cancelled"
    assert work_of(flow, run_id) == {
        "work": (work, work, 1),
        # released by the report, then cancelled by the expiry (message archived)
        "after": ("cancelled", "cancelled", 0) if first == "report" else ("cancelled", None, 0),
    }
    output = flow.execute("select output from pgflow.runs where run_id = %s", (run_id,)).fetchone()
    assert output == (None,)
    assert late_report_changes_nothing(flow, task, run_id) == work
    # The expired run's slot went to the run queued behind it: started, its task queued.
    assert run_status(flow, next_run) == "started"
    assert messages_left(flow) == [(next_run, "work")]
    assert tick(flow) == (True, 0, 0)
