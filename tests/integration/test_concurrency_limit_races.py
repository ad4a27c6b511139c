"""A flow's concurrency_limit under many sessions: never more than the limit of runs with one
concurrency key are started or paused, queued runs start in start order, rejected starts
write nothing.

Two kinds of test. Stress: 6 sessions start 30 runs with one key, released together,
while two workers simulated in SQL finish them (tasks complete, fail and retry, fail for
good, stall and get requeued by requeue_stalled_tasks, runs get paused and resumed) and a
sampler counts, from its own connection, the runs of the key that hold a slot; the audit
trail (run_events, in id order) is replayed afterwards. Forced interleavings: one session
holds its transaction open (and with it the key's advisory lock), the other is seen
waiting for that lock (pg_locks), then the first commits.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from tests.integration.keyed_sessions import (
    Claimed,
    Sampler,
    Started,
    claim,
    complete,
    fail,
    make_stalled,
    register,
    replay,
    run_in_background,
    start,
    together,
    waits_on,
    work_until,
)
from tests.integration.sessions import Background, connect

KEY = "account:7"
LIMIT = 2
STARTERS, STARTS_EACH = 6, 5
HOLDING = """
select coalesce(max(n), 0) from (
  select count(*) as n from pgflow.runs
  where flow_slug = %s and concurrency_key is not null and status in ('started', 'paused')
  group by concurrency_key
) as per_key
"""


def make_flow(
    conn: psycopg.Connection, slug: str, limit: int, on_limit: str, *, receipt: bool = True
) -> None:
    """charge, then receipt (unless not ``receipt``); 2 attempts, immediate retries, 5 s
    task timeout."""
    conn.execute(
        "select pgflow.create_flow(%s, max_attempts => 2, base_delay => 0, timeout => 5,"
        " concurrency_limit => %s, on_limit => %s)",
        (slug, limit, on_limit),
    )
    conn.execute("select pgflow.add_step(%s, 'charge')", (slug,))
    if receipt:
        conn.execute("select pgflow.add_step(%s, 'receipt', array['charge'])", (slug,))


# ---------------------------------------------------------------- the simulated handlers


def fails_for_good(n: int) -> bool:
    return n % 7 == 3


class Handlers:
    """What charge does, by the run's input n and the attempt (receipt always completes).

    n % 7 == 3: fails every attempt (the run fails). Else, on the first attempt only:
    n % 5 == 0 fails (retried at once), n % 6 == 1 never reports (left stalled, then
    requeued by requeue_stalled_tasks when a worker is idle), n % 8 == 2 pauses the run,
    completes, resumes it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stalled: list[Claimed] = []

    def handle(self, conn: psycopg.Connection, task: Claimed) -> None:
        if task.step_slug == "receipt":
            complete(conn, task, "sent")
            return
        n = task.flow_input["n"]
        first = task.attempt == 1
        if fails_for_good(n) or (first and n % 5 == 0):
            fail(conn, task, "card declined")
        elif first and n % 6 == 1:
            with self._lock:
                self._stalled.append(task)
        elif first and n % 8 == 2:
            conn.execute("select pgflow.pause_run(%s::uuid, 'race', 'hold')", (task.run_id,))
            complete(conn, task, {"n": n})
            conn.execute("select pgflow.resume_run(%s::uuid, 'race', 'go on')", (task.run_id,))
        else:
            complete(conn, task, {"n": n})

    def idle(self, conn: psycopg.Connection) -> None:
        """Make the stalled claims look stalled and requeue them (again next time if needed)."""
        with self._lock:
            mine, self._stalled = self._stalled, []
        left = [t for t in mine if make_stalled(conn, t)]
        if left:
            conn.execute("select pgflow.requeue_stalled_tasks()")
            left = [t for t in left if make_stalled(conn, t)]  # still started: not yet
        with self._lock:
            self._stalled.extend(left)


def unfinished(slug: str, starts_done: threading.Event) -> Callable[[psycopg.Connection], bool]:
    def finished(conn: psycopg.Connection) -> bool:
        row = conn.execute(
            "select count(*) from pgflow.runs where flow_slug = %s"
            " and status in ('queued', 'started', 'paused')",
            (slug,),
        ).fetchone()
        return starts_done.is_set() and row == (0,)

    return finished


# ---------------------------------------------------------------- what the audit trail says


def final_states(conn: psycopg.Connection, slug: str) -> dict[int, tuple[str, int | None]]:
    """n -> (status, queue_seq) of every run of the flow."""
    rows = conn.execute(
        "select (input->>'n')::int, status, queue_seq from pgflow.runs where flow_slug = %s",
        (slug,),
    ).fetchall()
    return {int(r[0]): (str(r[1]), r[2]) for r in rows}


def event_runs(conn: psycopg.Connection, slug: str, event: str) -> set[int]:
    rows = conn.execute(
        "select distinct (r.input->>'n')::int from pgflow.run_events as e"
        " join pgflow.runs as r on r.run_id = e.run_id where r.flow_slug = %s and e.event = %s",
        (slug, event),
    ).fetchall()
    return {int(r[0]) for r in rows}


# ---------------------------------------------------------------- stress: queue


def queue_starter(slug: str, s: int) -> Callable[[psycopg.Connection], list[Started]]:
    def run(conn: psycopg.Connection) -> list[Started]:
        out = []
        for j in range(STARTS_EACH):
            out.append(start(conn, slug, {"n": s * STARTS_EACH + j}, concurrency_key=KEY))
            conn.commit()  # each start its own transaction
        return out

    return run


def test_thirty_queued_starts_never_hold_more_than_the_limit_and_start_in_order(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    slug = "billing"
    make_flow(pgflow_conn, slug, LIMIT, "queue")
    handlers = Handlers()
    starts_done = threading.Event()
    with Sampler(pgflow_dsn, HOLDING, (slug,)) as sampler:
        join_workers = run_in_background(
            lambda: work_until(
                pgflow_dsn, slug, handlers.handle, unfinished(slug, starts_done), handlers.idle
            )
        )
        try:
            outcomes = together(pgflow_dsn, [queue_starter(slug, s) for s in range(STARTERS)])
        finally:
            starts_done.set()
        join_workers()

    assert [o.error for o in outcomes] == [None] * STARTERS
    results: list[Started] = [r for o in outcomes for r in o.result]
    assert len(results) == STARTERS * STARTS_EACH
    assert {r.status for r in results} <= {"started", "queued"}
    assert any(r.status == "queued" for r in results)  # the limit was reached
    assert sampler.peak <= LIMIT, sampler.counts()
    assert len(sampler.values) > 1

    states = final_states(pgflow_conn, slug)
    assert sorted(states) == list(range(STARTERS * STARTS_EACH))
    for n, (status, _) in states.items():
        assert status == ("failed" if fails_for_good(n) else "completed"), n
    # A run got a queue_seq when, and only when, it was created queued.
    for n, result in enumerate(results):
        assert (states[n][1] is not None) == (result.status == "queued"), n
    queued = [r.run_id for r in results if r.status == "queued"]
    # Queued runs started in queue_seq order (run:started after their run:queued).
    order = pgflow_conn.execute(
        "select r.queue_seq from pgflow.run_events as e join pgflow.runs as r using (run_id)"
        " where r.flow_slug = %s and e.event = 'run:started' and r.queue_seq is not null"
        " order by e.id",
        (slug,),
    ).fetchall()
    assert len(order) == len(queued)
    assert [o[0] for o in order] == sorted(o[0] for o in order)
    assert replay(pgflow_conn, slug) <= LIMIT
    # What happened on the way did happen.
    assert event_runs(pgflow_conn, slug, "task:requeued") == {1, 7, 13, 19}
    assert event_runs(pgflow_conn, slug, "run:paused") == {2, 18, 26}
    assert event_runs(pgflow_conn, slug, "run:failed") == {3, 10, 17, 24}
    assert pgflow_conn.execute(f"select count(*) from pgmq.q_{slug}").fetchone() == (0,)


# ---------------------------------------------------------------- stress: reject


def reject_starter(
    slug: str, numbers: Callable[[], int | None]
) -> Callable[[psycopg.Connection], list[tuple[int, Started | BaseException]]]:
    def run(conn: psycopg.Connection) -> list[tuple[int, Started | BaseException]]:
        out: list[tuple[int, Started | BaseException]] = []
        while (n := numbers()) is not None:
            try:
                out.append((n, start(conn, slug, {"n": n}, concurrency_key=KEY)))
                conn.commit()
            except psycopg.errors.ConfigurationLimitExceeded as exc:
                conn.rollback()
                out.append((n, exc))
                time.sleep(0.005)  # pacing of a caller that retries
        return out

    return run


def test_rejected_starts_never_push_the_count_over_the_limit_and_write_nothing(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    slug = "billing_r"
    make_flow(pgflow_conn, slug, LIMIT, "reject")
    handlers = Handlers()
    starts_done = threading.Event()
    lock, counter = threading.Lock(), iter(range(10_000))

    def numbers() -> int | None:
        """The next input n, until 12 runs started (or 400 tries)."""
        with lock:
            row = pgflow_conn.execute(
                "select count(*) from pgflow.runs where flow_slug = %s", (slug,)
            ).fetchone()
            n = next(counter)
            return None if row is None or row[0] >= 12 or n >= 400 else n

    with Sampler(pgflow_dsn, HOLDING, (slug,)) as sampler:
        join_workers = run_in_background(
            lambda: work_until(
                pgflow_dsn, slug, handlers.handle, unfinished(slug, starts_done), handlers.idle
            )
        )
        try:
            outcomes = together(pgflow_dsn, [reject_starter(slug, numbers) for _ in range(6)])
        finally:
            starts_done.set()
        join_workers()

    assert [o.error for o in outcomes] == [None] * 6
    attempts = [a for o in outcomes for a in o.result]
    started = {n: r for n, r in attempts if isinstance(r, Started)}
    rejected = {n: r for n, r in attempts if isinstance(r, BaseException)}
    assert len(started) >= LIMIT and rejected
    assert {r.status for r in started.values()} == {"started"}
    assert sampler.peak <= LIMIT, sampler.counts()
    assert replay(pgflow_conn, slug) <= LIMIT

    prefix = (
        f"start_flow: concurrency limit of flow '{slug}' for key '{KEY}' is reached"
        f" ({LIMIT} of {LIMIT}): held by run "
    )
    run_ids = {r.run_id for r in started.values()}
    for exc in rejected.values():
        assert isinstance(exc, psycopg.Error)
        assert exc.sqlstate == "53400"
        message = exc.diag.message_primary or ""
        assert message.startswith(prefix), message
        assert set(message.removeprefix(prefix).split(", ")) <= run_ids
    # Nothing of a rejected start was written.
    states = final_states(pgflow_conn, slug)
    assert sorted(states) == sorted(started)
    counts = pgflow_conn.execute(
        "select (select count(distinct run_id) from pgflow.run_events),"
        " (select count(*) from pgflow.step_states where flow_slug = %s)",
        (slug,),
    ).fetchone()
    assert counts == (len(started), 2 * len(started))
    for n, (status, queue_seq) in states.items():
        assert (status, queue_seq) == ("failed" if fails_for_good(n) else "completed", None)


# ---------------------------------------------------------------- forced interleavings


def slot(conn: psycopg.Connection, run_id: str) -> tuple[Any, ...]:
    row = conn.execute(
        "select concurrency_key, concurrency_limit, on_limit, queue_position,"
        " array(select h::text from unnest(holders) as h) from pgflow.get_run_slot(%s)",
        (run_id,),
    ).fetchone()
    assert row is not None
    return tuple(row)


def statuses(conn: psycopg.Connection, slug: str) -> dict[str, str]:
    rows = conn.execute(
        "select run_id::text, status from pgflow.runs where flow_slug = %s", (slug,)
    ).fetchall()
    return {str(r[0]): str(r[1]) for r in rows}


def test_a_start_waits_for_an_open_keyed_start_and_is_queued_behind_it(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "one", 1, "queue")
    with (
        connect(pgflow_dsn, autocommit=False) as a,
        connect(pgflow_dsn, autocommit=True) as b,
    ):
        first = start(a, "one", {"who": "a"}, concurrency_key=KEY)
        assert first.status == "started"  # not committed: a holds the key's advisory lock
        job = Background(b, lambda c: start(c, "one", {"who": "b"}, concurrency_key=KEY))
        waits_on(pgflow_conn, job, a, "advisory")
        a.commit()
        second = job.join()

    assert (second.status, second.duplicate) == ("queued", False)
    assert slot(pgflow_conn, second.run_id) == (KEY, 1, "queue", 1, [first.run_id])
    assert statuses(pgflow_conn, "one") == {first.run_id: "started", second.run_id: "queued"}
    tasks = pgflow_conn.execute("select run_id::text from pgflow.step_tasks").fetchall()
    assert tasks == [(first.run_id,)]  # a queued run has no task


@pytest.mark.parametrize("queued_before", [False, True], ids=["empty_queue", "one_queued"])
@pytest.mark.parametrize("first", ["completion", "start"])
def test_a_holder_completing_while_a_start_comes_leaves_exactly_one_started(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, first: str, queued_before: bool
) -> None:
    slug = "one"
    make_flow(pgflow_conn, slug, 1, "queue", receipt=False)
    holder = start(pgflow_conn, slug, {"who": "holder"}, concurrency_key=KEY)
    waiting = start(pgflow_conn, slug, {"who": "c"}, concurrency_key=KEY) if queued_before else None
    (charge,) = claim(pgflow_conn, slug, register(pgflow_conn, slug))
    assert charge.run_id == holder.run_id

    with (
        connect(pgflow_dsn, autocommit=False) as x,
        connect(pgflow_dsn, autocommit=False) as y,
    ):
        if first == "completion":
            assert complete(x, charge, "paid") == "completed"  # run completed, key locked
            job = Background(y, lambda c: start(c, slug, {"who": "y"}, concurrency_key=KEY))
            waits_on(pgflow_conn, job, x, "advisory")
            x.commit()
            new = job.join()
            y.commit()
        else:
            new = start(y, slug, {"who": "y"}, concurrency_key=KEY)
            assert new.status == "queued"  # the holder still holds the slot
            job = Background(x, lambda c: complete(c, charge, "paid"))
            waits_on(pgflow_conn, job, y, "advisory")
            y.commit()
            assert job.join() == "completed"
            x.commit()

    now = statuses(pgflow_conn, slug)
    assert now[holder.run_id] == "completed"
    started = [run_id for run_id, status in now.items() if status == "started"]
    expected = waiting.run_id if waiting else new.run_id
    assert started == [expected]  # exactly one, the oldest in the queue
    if waiting:
        assert now[new.run_id] == "queued"
        assert slot(pgflow_conn, new.run_id) == (KEY, 1, "queue", 1, [waiting.run_id])
    tasks = pgflow_conn.execute(
        "select run_id::text, step_slug, status from pgflow.step_tasks where run_id <> %s",
        (holder.run_id,),
    ).fetchall()
    assert tasks == [(expected, "charge", "queued")]
    assert replay(pgflow_conn, slug) == 1
