"""Sessions for the races of keyed starts, concurrency limits, max_in_flight and deadlines.

Everything goes through SQL (``pgflow.start_flow``, ``read_and_start_tasks``,
``complete_task``, ``fail_task``, ``tick``), never the Python client:

- :func:`start`: a start with keys and a deadline, returning (run_id, status, duplicate).
- :func:`together`: calls on their own connections, released at once by a barrier, each in
  its own transaction.
- :class:`Sampler`: checks an invariant (one integer query) again and again from its own
  connection while a race runs, each sample on a fresh snapshot.
- :func:`work_until`: worker threads simulated in SQL (claim, then a handler decides:
  complete, fail, leave stalled), until the caller says everything is done;
  :func:`run_in_background` runs it (or anything) beside the race.
- :func:`replay`: the audit trail of a flow's runs replayed in order (slots held, start
  order of queued runs).
- :func:`waits_on`: a background session is seen waiting for a lock of a given kind held
  by a given session (pg_stat_activity, pg_locks, pg_blocking_pids: never a sleep).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from tests.integration.sessions import Background, connect, wait_until_done_or_blocked

# ---------------------------------------------------------------- starts


@dataclass(frozen=True)
class Started:
    """What start_flow returned: the run, its status after the call, and the duplicate flag."""

    run_id: str
    status: str
    duplicate: bool


def start(
    conn: psycopg.Connection,
    flow_slug: str,
    flow_input: Any,
    *,
    idempotency_key: str | None = None,
    concurrency_key: str | None = None,
    deadline: datetime | None = None,
) -> Started:
    """``select * from pgflow.start_flow(...)`` with the pgflow-py trailing arguments."""
    row = conn.execute(
        "select run_id::text, status, duplicate from pgflow.start_flow(%s, %s,"
        " idempotency_key => %s::text, concurrency_key => %s::text,"
        " deadline => %s::timestamptz)",
        (flow_slug, Jsonb(flow_input), idempotency_key, concurrency_key, deadline),
    ).fetchone()
    assert row is not None
    return Started(str(row[0]), str(row[1]), bool(row[2]))


@dataclass
class Outcome:
    """The result of one call released by :func:`together`, or the error it raised."""

    result: Any = None
    error: BaseException | None = None


def together(
    dsn: str, calls: Sequence[Callable[[psycopg.Connection], Any]], timeout: float = 60.0
) -> list[Outcome]:
    """Run each call on its own connection and thread, all released at once by a barrier.

    Each call runs in its own transaction, committed when it returns and rolled back when
    it raises. Returns one :class:`Outcome` per call, in the order of ``calls``.
    """
    conns = [connect(dsn, autocommit=False) for _ in calls]
    barrier = threading.Barrier(len(calls))
    outcomes = [Outcome() for _ in calls]

    def run(i: int) -> None:
        conn = conns[i]
        barrier.wait()
        try:
            outcomes[i].result = calls[i](conn)
            conn.commit()
        except BaseException as exc:  # reported in the outcome
            conn.rollback()
            outcomes[i].error = exc

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(calls))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout)
            assert not thread.is_alive(), "a call released by the barrier did not finish"
    finally:
        for conn in conns:
            conn.close()
    return outcomes


# ---------------------------------------------------------------- the sampler


class Sampler:
    """Run ``query`` (one integer) again and again on its own connection until stopped.

    Use as a context manager around the race; every value is kept in ``values`` (the
    last one is taken after the race ended). Each query is its own statement in
    autocommit, so each sample reads one snapshot.
    """

    def __init__(self, dsn: str, query: str, params: Sequence[Any] = ()) -> None:
        self.values: list[int] = []
        self._dsn = dsn
        self._query = query
        self._params = tuple(params)
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self, conn: psycopg.Connection) -> None:
        row = conn.execute(self._query, self._params).fetchone()
        self.values.append(0 if row is None or row[0] is None else int(row[0]))

    def _run(self) -> None:
        try:
            with connect(self._dsn, autocommit=True) as conn:
                while not self._stop.is_set():
                    self._sample(conn)
                self._sample(conn)
        except BaseException as exc:  # reported by __exit__
            self._error = exc

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(30)
        assert not self._thread.is_alive(), "the sampler did not stop"
        if self._error is not None:
            raise self._error

    @property
    def peak(self) -> int:
        """The largest value sampled."""
        assert self.values, "the sampler took no sample"
        return max(self.values)

    def counts(self) -> Counter[int]:
        """How often each value was sampled (for assertion messages)."""
        return Counter(self.values)


# ---------------------------------------------------------------- a worker in SQL


@dataclass(frozen=True)
class Claimed:
    """A task claimed by read_and_start_tasks, as its handler gets it."""

    run_id: str
    step_slug: str
    task_index: int
    attempt: int
    input: Any
    flow_input: Any


def register(conn: psycopg.Connection, flow_slug: str) -> uuid.UUID:
    """A fresh worker id, registered for the flow's queue."""
    worker_id = uuid.uuid4()
    conn.execute("select pgflow.register_worker(%s, %s, 'race-test')", (worker_id, flow_slug))
    return worker_id


def claim(
    conn: psycopg.Connection, flow_slug: str, worker_id: uuid.UUID, qty: int = 5
) -> list[Claimed]:
    """read_and_start_tasks: the tasks claimed (messages read but not claimed are dropped)."""
    rows = conn.execute(
        "select run_id::text, step_slug, task_index, attempts_count, input, flow_input"
        " from pgflow.read_and_start_tasks(%s, %s, %s, 30) where run_id is not null",
        (flow_slug, worker_id, qty),
    ).fetchall()
    return [Claimed(str(r[0]), str(r[1]), int(r[2]), int(r[3]), r[4], r[5]) for r in rows]


def complete(conn: psycopg.Connection, task: Claimed, output: Any = None) -> str:
    """complete_task for the claim's attempt; returns the task's status after the call."""
    row = conn.execute(
        "select status from pgflow.complete_task(%s::uuid, %s, %s, %s, %s)",
        (task.run_id, task.step_slug, task.task_index, Jsonb(output), task.attempt),
    ).fetchone()
    assert row is not None
    return str(row[0])


def fail(conn: psycopg.Connection, task: Claimed, error: str = "boom") -> str:
    """fail_task for the claim's attempt; returns the task's status after the call."""
    row = conn.execute(
        "select status from pgflow.fail_task(%s::uuid, %s, %s, %s, %s)",
        (task.run_id, task.step_slug, task.task_index, error, task.attempt),
    ).fetchone()
    assert row is not None
    return str(row[0])


def make_stalled(conn: psycopg.Connection, task: Claimed) -> bool:
    """Make the claim look stalled (started 10 minutes ago); False when it moved on."""
    cur = conn.execute(
        "update pgflow.step_tasks set queued_at = now() - interval '11 minutes',"
        " started_at = now() - interval '10 minutes'"
        " where run_id = %s::uuid and step_slug = %s and task_index = %s"
        " and status = 'started' and attempts_count = %s",
        (task.run_id, task.step_slug, task.task_index, task.attempt),
    )
    return cur.rowcount == 1


Handler = Callable[[psycopg.Connection, Claimed], None]


def work_until(
    dsn: str,
    flow_slug: str,
    handle: Handler,
    finished: Callable[[psycopg.Connection], bool],
    idle: Callable[[psycopg.Connection], None] = lambda conn: None,
    *,
    workers: int = 2,
    qty: int = 5,
    timeout: float = 120.0,
) -> None:
    """Run ``workers`` SQL workers (each its own connection and worker id) to the end.

    Each loops: claim up to ``qty`` tasks and hand each to ``handle``; when nothing was
    claimed, stop if ``finished(conn)``, else call ``idle(conn)`` (e.g. requeue stalled
    tasks, tick) and poll again. Raises the first error of a worker; fails when the work
    is not finished within ``timeout`` seconds.
    """
    errors: list[BaseException] = []
    give_up = time.monotonic() + timeout

    def loop() -> None:
        try:
            with connect(dsn, autocommit=True) as conn:
                worker_id = register(conn, flow_slug)
                while not errors:
                    tasks = claim(conn, flow_slug, worker_id, qty)
                    for task in tasks:
                        handle(conn, task)
                    if tasks:
                        continue
                    if finished(conn):
                        return
                    assert time.monotonic() < give_up, "the workers did not finish in time"
                    idle(conn)
                    time.sleep(0.005)  # poll pacing, as a worker's poll interval
        except BaseException as exc:  # raised below
            errors.append(exc)

    threads = [threading.Thread(target=loop, daemon=True) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout + 30)
        assert not thread.is_alive(), "a worker thread did not stop"
    if errors:
        raise errors[0]


def run_in_background(target: Callable[[], None]) -> Callable[[], None]:
    """Start target in a thread; the returned function joins it and re-raises its error."""
    errors: list[BaseException] = []

    def wrapped() -> None:
        try:
            target()
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=wrapped, daemon=True)
    thread.start()

    def join() -> None:
        thread.join(200)
        assert not thread.is_alive()
        if errors:
            raise errors[0]

    return join


# ---------------------------------------------------------------- the audit trail


def replay(conn: psycopg.Connection, slug: str) -> int:
    """Replay the run events of flow ``slug`` in id order; return the most slots held at once.

    Asserts on the way that a queued run leaves the queue only at its head (start
    order) and that a run created started never overtakes a queued one. Sound because a
    run:queued or run:started event is written under its key's lock, after the decision
    it records, and an end (completed, failed, cancelled, expired) is written before its
    transaction commits: a start that saw an end always has a larger id than that end.
    """
    rows = conn.execute(
        "select e.event, e.run_id::text from pgflow.run_events as e"
        " join pgflow.runs as r on r.run_id = e.run_id"
        " where r.flow_slug = %s and e.step_slug is null and e.event in"
        " ('run:queued', 'run:started', 'run:completed', 'run:failed', 'run:cancelled',"
        " 'run:expired') order by e.id",
        (slug,),
    ).fetchall()
    queue: deque[str] = deque()
    holding: set[str] = set()
    peak = 0
    for event, run_id in rows:
        if event == "run:queued":
            queue.append(run_id)
        elif event == "run:started":
            if run_id in queue:
                assert queue[0] == run_id, f"queued run {run_id} started before {queue[0]}"
                queue.popleft()
            else:
                assert not queue, f"run {run_id} started while {list(queue)} were queued"
            holding.add(run_id)
            peak = max(peak, len(holding))
        else:  # ended: a queued run leaves the queue, a started one frees its slot
            if run_id in queue:
                queue.remove(run_id)
            holding.discard(run_id)
    return peak


# ---------------------------------------------------------------- lock waits


def ungranted_locks(observer: psycopg.Connection, pid: int) -> set[str]:
    """The kinds (pg_locks.locktype) of the locks the backend ``pid`` waits for."""
    rows = observer.execute(
        "select locktype from pg_locks where pid = %s and not granted", (pid,)
    ).fetchall()
    return {str(r[0]) for r in rows}


def waits_on(
    observer: psycopg.Connection, job: Background, holder: psycopg.Connection, locktype: str
) -> None:
    """The job waits for a lock of kind ``locktype`` and ``holder`` is a session blocking it."""
    assert wait_until_done_or_blocked(observer, job) == "blocked"
    assert locktype in ungranted_locks(observer, job.pid)
    row = observer.execute("select pg_blocking_pids(%s)", (job.pid,)).fetchone()
    assert row is not None
    assert holder.info.backend_pid in row[0]
