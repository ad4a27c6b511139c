"""A step's max_in_flight under several workers: never more than N of its tasks started at
once, held tasks spend no attempt, and what a missed release leaves the tick releases.

Stress: 4 workers simulated in SQL, each with its own worker id, claim (read_and_start_tasks)
and report the 40 tasks of a map step with max_in_flight 3 (some fail once and are retried,
one is left stalled and requeued) while a sampler counts, from its own connection, the
step's started tasks. Forced interleavings: a claim waits for the step's advisory lock held
by an open claim, then takes only the free slots; a release that cannot see the message an
open claim is holding back misses it, and the tick releases it.
"""

from __future__ import annotations

import threading
import time

import psycopg
from psycopg.types.json import Jsonb

from tests.integration.keyed_sessions import (
    Claimed,
    Sampler,
    claim,
    complete,
    fail,
    make_stalled,
    register,
    waits_on,
    work_until,
)
from tests.integration.sessions import Background, connect, wait_until_done_or_blocked

FLOW = "fan"
ITEMS = 40
STARTED = (
    "select count(*) from pgflow.step_tasks"
    " where flow_slug = 'fan' and step_slug = 'each' and status = 'started'"
)


def make_flow(conn: psycopg.Connection, max_in_flight: int) -> None:
    """Map step `each` over the run input (max_in_flight), then `total`; immediate retries."""
    conn.execute(
        "select pgflow.create_flow(%s, max_attempts => 3, base_delay => 0, timeout => 5)", (FLOW,)
    )
    conn.execute(
        "select pgflow.add_step(%s, 'each', step_type => 'map', max_in_flight => %s)",
        (FLOW, max_in_flight),
    )
    conn.execute("select pgflow.add_step(%s, 'total', array['each'])", (FLOW,))


def start_run(conn: psycopg.Connection, items: int) -> str:
    row = conn.execute(
        "select run_id::text from pgflow.start_flow(%s, %s)", (FLOW, Jsonb(list(range(items))))
    ).fetchone()
    assert row is not None
    return str(row[0])


def tasks_of_each(conn: psycopg.Connection) -> list[tuple[int, str, int]]:
    """(task_index, status, attempts_count) of the map step's tasks, by index."""
    rows = conn.execute(
        "select task_index, status, attempts_count from pgflow.step_tasks"
        " where step_slug = 'each' order by task_index"
    ).fetchall()
    return [(int(r[0]), str(r[1]), int(r[2])) for r in rows]


def held(conn: psycopg.Connection) -> list[int]:
    """task_index of the tasks whose message is held back (throttled_messages)."""
    rows = conn.execute(
        "select t.task_index from pgflow.throttled_messages as h"
        " join pgflow.step_tasks as t on t.message_id = h.message_id order by 1"
    ).fetchall()
    return [int(r[0]) for r in rows]


# ---------------------------------------------------------------- stress


class Handlers:
    """each: x fails its first attempt when x % 9 == 4; x == 7 stalls on its first attempt;
    otherwise returns 2x. total: the sum. Idle workers requeue the stalled claim and tick."""

    STALLS = 7

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stalled: list[Claimed] = []

    def handle(self, conn: psycopg.Connection, task: Claimed) -> None:
        if task.step_slug == "total":
            complete(conn, task, sum(task.input["each"]))
            return
        x = int(task.input)
        if task.attempt == 1 and x % 9 == 4:
            fail(conn, task, "rate limited")
        elif task.attempt == 1 and x == self.STALLS:
            with self._lock:
                self._stalled.append(task)
        else:
            time.sleep(0.002)  # the handler's work: other claims run meanwhile
            complete(conn, task, 2 * x)

    def idle(self, conn: psycopg.Connection) -> None:
        with self._lock:
            mine, self._stalled = self._stalled, []
        left = [t for t in mine if make_stalled(conn, t)]
        if left:
            conn.execute("select pgflow.requeue_stalled_tasks()")
            left = [t for t in left if make_stalled(conn, t)]
        with self._lock:
            self._stalled.extend(left)
        # Whatever a missed release left held (a claim holding back a message while the
        # release that freed its slot could not see it yet) becomes visible again.
        conn.execute("select * from pgflow.tick()")


def expected_attempts(x: int) -> int:
    return 2 if x % 9 == 4 or x == Handlers.STALLS else 1


def test_four_workers_never_start_more_than_max_in_flight_tasks_of_the_step(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, 3)
    run_id = start_run(pgflow_conn, ITEMS)
    handlers = Handlers()

    def finished(conn: psycopg.Connection) -> bool:
        row = conn.execute("select status from pgflow.runs where run_id = %s", (run_id,)).fetchone()
        return row == ("completed",)

    with Sampler(pgflow_dsn, STARTED) as sampler:
        work_until(pgflow_dsn, FLOW, handlers.handle, finished, handlers.idle, workers=4, qty=5)

    assert sampler.peak <= 3, sampler.counts()
    assert len(sampler.values) > 1
    row = pgflow_conn.execute(
        "select status, output from pgflow.runs where run_id = %s", (run_id,)
    ).fetchone()
    assert row == ("completed", {"total": 2 * sum(range(ITEMS))})
    # Every task completed; attempts are what failures and the stall explain: a held
    # message spent none.
    assert tasks_of_each(pgflow_conn) == [
        (x, "completed", expected_attempts(x)) for x in range(ITEMS)
    ]
    requeued = pgflow_conn.execute(
        "select task_index, requeued_count from pgflow.step_tasks where requeued_count > 0"
    ).fetchall()
    assert requeued == [(Handlers.STALLS, 1)]
    # Messages were held on the way (read more often than claimed), none is left.
    reads = pgflow_conn.execute(
        f"select sum(a.read_ct), (select sum(attempts_count) from pgflow.step_tasks"
        f" where step_slug = 'each') from pgmq.a_{FLOW} as a where a.message->>'step_slug' = 'each'"
    ).fetchone()
    assert reads is not None and reads[0] > reads[1]
    assert held(pgflow_conn) == []
    assert pgflow_conn.execute(f"select count(*) from pgmq.q_{FLOW}").fetchone() == (0,)
    workers = pgflow_conn.execute(
        "select count(distinct last_worker_id) from pgflow.step_tasks"
    ).fetchone()
    assert workers is not None and workers[0] > 1


# ---------------------------------------------------------------- forced interleavings


def test_a_claim_waits_for_an_open_claim_of_the_step_then_takes_only_the_free_slots(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, 3)
    start_run(pgflow_conn, 6)
    with (
        connect(pgflow_dsn, autocommit=False) as first,
        connect(pgflow_dsn, autocommit=True) as second,
    ):
        mine = claim(first, FLOW, register(first, FLOW), qty=2)
        assert [t.task_index for t in mine] == [0, 1]  # not committed: holds the step's lock
        job = Background(second, lambda c: claim(c, FLOW, register(c, FLOW), qty=5))
        waits_on(pgflow_conn, job, first, "advisory")
        first.commit()
        theirs = job.join()

    assert [t.task_index for t in theirs] == [2]  # one free slot left
    assert tasks_of_each(pgflow_conn) == [
        (0, "started", 1),
        (1, "started", 1),
        (2, "started", 1),
        (3, "queued", 0),  # held: no attempt spent
        (4, "queued", 0),
        (5, "queued", 0),
    ]
    assert held(pgflow_conn) == [3, 4, 5]
    # A slot frees: exactly one held message becomes visible, and is claimed.
    complete(pgflow_conn, mine[0], 0)
    assert held(pgflow_conn) == [4, 5]
    again = claim(pgflow_conn, FLOW, register(pgflow_conn, FLOW), qty=5)
    assert [(t.task_index, t.attempt) for t in again] == [(3, 1)]


def test_the_tick_releases_a_message_held_by_a_claim_the_release_could_not_see(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, 1)
    start_run(pgflow_conn, 2)
    (task0,) = claim(pgflow_conn, FLOW, register(pgflow_conn, FLOW), qty=1)
    with (
        connect(pgflow_dsn, autocommit=False) as claimer,
        connect(pgflow_dsn, autocommit=True) as reporter,
    ):
        # The claim reads task 1's message and holds it back (the slot is taken), open.
        assert claim(claimer, FLOW, register(claimer, FLOW), qty=5) == []
        # Task 0 completes meanwhile: its release cannot see the held message yet.
        job = Background(reporter, lambda c: complete(c, task0, 0))
        assert wait_until_done_or_blocked(pgflow_conn, job) == "done"
        assert job.join() == "completed"
        claimer.commit()

    # Missed: the slot is free, but the message stays hidden (300 s) and listed.
    assert held(pgflow_conn) == [1]
    worker = register(pgflow_conn, FLOW)
    assert claim(pgflow_conn, FLOW, worker) == []
    row = pgflow_conn.execute("select ran, released_tasks from pgflow.tick()").fetchone()
    assert row == (True, 1)
    assert held(pgflow_conn) == []
    (task1,) = claim(pgflow_conn, FLOW, worker)
    assert (task1.task_index, task1.attempt) == (1, 1)
    row = pgflow_conn.execute("select released_tasks from pgflow.tick()").fetchone()
    assert row == (0,)  # nothing twice
