"""Wait steps racing: a signal against the tick that times its wait out, two ticks, and two
sends with one idempotency key, with two real sessions and a forced interleaving.

As in run_control_harness.py, one session holds its transaction open after its call,
the other call runs in a thread (:class:`Background`) and is seen either finished or
waiting for a lock held by the first session (pg_stat_activity and pg_blocking_pids, never
a sleep), and only then the first commits. Time is moved by setting a wait's deadline in
the past. Every case ends with exactly one outcome: one wait_states outcome, at most one
signal taken, and each event recorded as often as it happened.
"""

from __future__ import annotations

from collections import Counter

import psycopg
import pytest

from tests.integration.run_control_harness import events, run_status, waits_for
from tests.integration.sessions import Background, connect, wait_until_done_or_blocked

FLOW = "wr"
Tick = tuple[bool, int, int]
Signal = tuple[int, str, str | None, bool]


# ---------------------------------------------------------------- the flow and its calls


def make_flow(conn: psycopg.Connection, on_timeout: str = "fail", *, handler: bool = True) -> None:
    """Flow `wr`: gate (waits for "go", 60 s, ``on_timeout``) and work (a task), both roots.

    work keeps the run started whatever happens to gate.
    """
    conn.execute("select pgflow.create_flow(%s, max_attempts => 1)", (FLOW,))
    conn.execute("select pgflow.add_step(%s, 'gate')", (FLOW,))
    conn.execute(
        "select pgflow.add_wait(%s, 'gate', 'go', timeout => 60, on_timeout => %s,"
        " runs_handler => %s)",
        (FLOW, on_timeout, handler),
    )
    conn.execute("select pgflow.add_step(%s, 'work')", (FLOW,))


def start_run(conn: psycopg.Connection) -> str:
    row = conn.execute(
        "select run_id::text from pgflow.start_flow(%s, '{}'::jsonb)", (FLOW,)
    ).fetchone()
    assert row is not None
    return str(row[0])


def deadline_passed(conn: psycopg.Connection, run_id: str) -> None:
    """Move the run's waits one second past their deadline (no sleep)."""
    conn.execute(
        "update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = %s",
        (run_id,),
    )


def tick(conn: psycopg.Connection) -> Tick:
    row = conn.execute("select ran, fired_waits, requeued_tasks from pgflow.tick()").fetchone()
    assert row is not None
    return bool(row[0]), int(row[1]), int(row[2])


def send(conn: psycopg.Connection, run_id: str, key: str | None = None) -> Signal:
    """send_signal 'go' to the run: (signal_id, status, taken_by_step, duplicate)."""
    row = conn.execute(
        "select signal_id, status, taken_by_step, duplicate"
        " from pgflow.send_signal(%s::uuid, 'go', '{\"ok\": true}'::jsonb, %s, 'alice', 'race')",
        (run_id, key),
    ).fetchone()
    assert row is not None
    return int(row[0]), str(row[1]), row[2], bool(row[3])


# ---------------------------------------------------------------- what the database holds


def wait_outcome(conn: psycopg.Connection, run_id: str) -> tuple[str | None, int | None]:
    """(outcome, signal_id) of gate's wait; exactly one row."""
    rows = conn.execute(
        "select outcome, signal_id from pgflow.wait_states where run_id = %s", (run_id,)
    ).fetchall()
    assert len(rows) == 1
    return rows[0][0], rows[0][1]


def signals(conn: psycopg.Connection, run_id: str) -> list[tuple[int, str, str | None]]:
    """(signal_id, status, taken_by_step) of every signal of the run, oldest first."""
    rows = conn.execute(
        "select signal_id, status, taken_by_step from pgflow.signals where run_id = %s"
        " order by signal_id",
        (run_id,),
    ).fetchall()
    return [(int(r[0]), str(r[1]), r[2]) for r in rows]


def step_status(conn: psycopg.Connection, run_id: str, step: str) -> tuple[str, str | None]:
    row = conn.execute(
        "select status, skip_reason from pgflow.step_states where run_id = %s and step_slug = %s",
        (run_id, step),
    ).fetchone()
    assert row is not None
    return str(row[0]), row[1]


def wait_events(conn: psycopg.Connection, run_id: str) -> Counter[tuple[str, str | None]]:
    """The events of the run about signals and waits (the rest is checked case by case)."""
    return Counter(
        {
            k: n
            for k, n in events(conn, run_id).items()
            if k[0].startswith(("signal:", "wait:", "timer:"))
        }
    )


# ---------------------------------------------------------------- 1. a signal vs the tick


@pytest.mark.parametrize(
    ("on_timeout", "handler"),
    [("fail", True), ("skip", True), ("continue", True), ("continue", False)],
)
def test_a_signal_holding_the_run_wins_over_the_tick_which_skips_the_run(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, on_timeout: str, handler: bool
) -> None:
    make_flow(pgflow_conn, on_timeout, handler=handler)
    run_id = start_run(pgflow_conn)
    deadline_passed(pgflow_conn, run_id)
    with (
        connect(pgflow_dsn, autocommit=False) as sender,
        connect(pgflow_dsn, autocommit=True) as ticker,
    ):
        signal_id, status, taken_by, duplicate = send(sender, run_id)
        assert (status, taken_by, duplicate) == ("taken", "gate", False)
        job = Background(ticker, tick)
        # the run row is locked by the send: the tick skips it (SKIP LOCKED), nothing waits
        assert wait_until_done_or_blocked(pgflow_conn, job) == "done"
        assert job.join() == (True, 0, 0)
        sender.commit()
        assert tick(ticker) == (True, 0, 0)  # the wait is resolved: nothing left to fire

    assert wait_outcome(pgflow_conn, run_id) == ("signal", signal_id)
    assert signals(pgflow_conn, run_id) == [(signal_id, "taken", "gate")]
    assert run_status(pgflow_conn, run_id) == "started"
    assert step_status(pgflow_conn, run_id, "gate") == (
        ("started", None) if handler else ("completed", None)
    )
    assert wait_events(pgflow_conn, run_id) == Counter(
        {("signal:received", None): 1, ("signal:taken", "gate"): 1}
    )


@pytest.mark.parametrize(
    ("on_timeout", "handler", "gate_after"),
    [
        ("skip", True, ("skipped", "timed_out")),
        ("continue", True, ("started", None)),
        ("continue", False, ("completed", None)),
    ],
)
def test_a_tick_holding_the_run_times_the_wait_out_and_the_waiting_signal_stays_pending(
    pgflow_conn: psycopg.Connection,
    pgflow_dsn: str,
    on_timeout: str,
    handler: bool,
    gate_after: tuple[str, str | None],
) -> None:
    make_flow(pgflow_conn, on_timeout, handler=handler)
    run_id = start_run(pgflow_conn)
    deadline_passed(pgflow_conn, run_id)
    with (
        connect(pgflow_dsn, autocommit=False) as ticker,
        connect(pgflow_dsn, autocommit=True) as sender,
    ):
        assert tick(ticker) == (True, 1, 0)  # fired, not committed: the run row is held
        job = Background(sender, lambda c: send(c, run_id))
        waits_for(pgflow_conn, job, ticker)  # on the run row (_lock_run_for_control)
        ticker.commit()
        signal_id, status, taken_by, duplicate = job.join()
        # the wait is over: the signal is stored pending, not taken, not dropped
        assert (status, taken_by, duplicate) == ("pending", None, False)
        assert tick(ticker) == (True, 0, 0)
        ticker.commit()

    assert wait_outcome(pgflow_conn, run_id) == ("timed_out", None)
    assert signals(pgflow_conn, run_id) == [(signal_id, "pending", None)]
    assert run_status(pgflow_conn, run_id) == "started"
    assert step_status(pgflow_conn, run_id, "gate") == gate_after
    assert wait_events(pgflow_conn, run_id) == Counter(
        {("wait:timed_out", "gate"): 1, ("signal:received", None): 1}
    )


def test_a_tick_holding_the_run_fails_it_and_the_waiting_signal_raises_storing_nothing(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "fail")
    run_id = start_run(pgflow_conn)
    deadline_passed(pgflow_conn, run_id)
    with (
        connect(pgflow_dsn, autocommit=False) as ticker,
        connect(pgflow_dsn, autocommit=True) as sender,
    ):
        assert tick(ticker) == (True, 1, 0)
        job = Background(sender, lambda c: send(c, run_id, "key-1"))
        waits_for(pgflow_conn, job, ticker)
        ticker.commit()
        with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as raised:
            job.join()
        assert raised.value.diag.message_primary == f"send_signal: run {run_id} is failed"

    assert wait_outcome(pgflow_conn, run_id) == ("timed_out", None)
    assert signals(pgflow_conn, run_id) == []
    assert run_status(pgflow_conn, run_id) == "failed"
    assert step_status(pgflow_conn, run_id, "gate") == ("failed", None)
    assert events(pgflow_conn, run_id) == Counter(
        {
            ("run:started", None): 1,
            ("step:waiting", "gate"): 1,
            ("step:started", "work"): 1,
            ("wait:timed_out", "gate"): 1,
            ("step:failed", "gate"): 1,
            ("run:failed", None): 1,
            ("step:cancelled", "work"): 1,
        }
    )


# ---------------------------------------------------------------- 2. two ticks


def test_a_second_tick_returns_at_once_while_the_first_is_open(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "skip")
    run_id = start_run(pgflow_conn)
    deadline_passed(pgflow_conn, run_id)
    with (
        connect(pgflow_dsn, autocommit=False) as first,
        connect(pgflow_dsn, autocommit=True) as second,
    ):
        assert tick(first) == (True, 1, 0)
        job = Background(second, tick)
        # one tick at a time: the second does not wait, it says it did not run
        assert wait_until_done_or_blocked(pgflow_conn, job) == "done"
        assert job.join() == (False, 0, 0)
        first.commit()
        assert tick(second) == (True, 0, 0)  # nothing left to fire

    assert wait_outcome(pgflow_conn, run_id) == ("timed_out", None)
    assert step_status(pgflow_conn, run_id, "gate") == ("skipped", "timed_out")
    assert wait_events(pgflow_conn, run_id) == Counter({("wait:timed_out", "gate"): 1})
    assert events(pgflow_conn, run_id)[("step:skipped", "gate")] == 1


def test_a_tick_after_a_rolled_back_tick_fires_the_wait_once(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "skip")
    run_id = start_run(pgflow_conn)
    deadline_passed(pgflow_conn, run_id)
    with (
        connect(pgflow_dsn, autocommit=False) as first,
        connect(pgflow_dsn, autocommit=True) as second,
    ):
        assert tick(first) == (True, 1, 0)
        first.rollback()  # the advisory lock goes with the transaction
        assert tick(second) == (True, 1, 0)
        assert tick(second) == (True, 0, 0)

    assert wait_outcome(pgflow_conn, run_id) == ("timed_out", None)
    assert wait_events(pgflow_conn, run_id) == Counter({("wait:timed_out", "gate"): 1})


# ---------------------------------------------------------------- 3. one idempotency key, twice


def test_two_sends_with_one_key_store_one_signal_the_second_is_a_duplicate(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "fail")
    run_id = start_run(pgflow_conn)
    with (
        connect(pgflow_dsn, autocommit=False) as first,
        connect(pgflow_dsn, autocommit=True) as second,
    ):
        signal_id, status, taken_by, duplicate = send(first, run_id, "key-1")
        assert (status, taken_by, duplicate) == ("taken", "gate", False)
        job = Background(second, lambda c: send(c, run_id, "key-1"))
        waits_for(pgflow_conn, job, first)  # on the run row
        first.commit()
        assert job.join() == (signal_id, "taken", "gate", True)

    assert signals(pgflow_conn, run_id) == [(signal_id, "taken", "gate")]
    assert wait_outcome(pgflow_conn, run_id) == ("signal", signal_id)
    assert wait_events(pgflow_conn, run_id) == Counter(
        {
            ("signal:received", None): 1,
            ("signal:taken", "gate"): 1,
            ("signal:duplicate", None): 1,
        }
    )
    tasks = pgflow_conn.execute(
        "select count(*) from pgflow.step_tasks where run_id = %s and step_slug = 'gate'",
        (run_id,),
    ).fetchone()
    assert tasks == (1,)  # woken once


def test_when_the_first_send_rolls_back_the_second_with_its_key_is_stored(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "fail")
    run_id = start_run(pgflow_conn)
    with (
        connect(pgflow_dsn, autocommit=False) as first,
        connect(pgflow_dsn, autocommit=True) as second,
    ):
        assert send(first, run_id, "key-1")[1:] == ("taken", "gate", False)
        job = Background(second, lambda c: send(c, run_id, "key-1"))
        waits_for(pgflow_conn, job, first)
        first.rollback()
        signal_id, status, taken_by, duplicate = job.join()
        assert (status, taken_by, duplicate) == ("taken", "gate", False)

    assert signals(pgflow_conn, run_id) == [(signal_id, "taken", "gate")]
    assert wait_outcome(pgflow_conn, run_id) == ("signal", signal_id)
    assert wait_events(pgflow_conn, run_id) == Counter(
        {("signal:received", None): 1, ("signal:taken", "gate"): 1}
    )
