"""pause_run, resume_run, retry_run, skip_step and complete_step racing a worker's reports, and
pause_run racing the stalled-task sweep, with two real sessions and a forced interleaving (see
run_control_harness.py): the first to lock the run wins, the other is a no-op that says so
or applies on top of it, and each event is recorded once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from tests.integration.run_control_harness import (
    FLOW,
    WORKER,
    claim,
    complete,
    events,
    fail,
    start_run,
    started_events,
    task,
    verb,
    waits_for,
)
from tests.integration.sessions import Background, connect, wait_until_done_or_blocked
from tests.integration.test_run_control_races_sweep import sweep

Call = Callable[[psycopg.Connection], Any]
FAILED = Counter({("task:failed", "a"): 1, ("step:failed", "a"): 1, ("run:failed", None): 1})


def make_dag(conn: psycopg.Connection, steps: dict[str, list[str]], max_attempts: int = 3) -> str:
    """Flow `rc` of single steps (slug -> its dependencies) and a run of it."""
    conn.execute("select pgflow.create_flow(%s, max_attempts => %s)", (FLOW, max_attempts))
    for slug, deps in steps.items():
        conn.execute("select pgflow.add_step(%s, %s, %s::text[])", (FLOW, slug, deps))
    conn.execute(
        "insert into pgflow.workers (worker_id, queue_name, function_name) values (%s, %s, 'x')",
        (WORKER, FLOW),
    )
    return start_run(conn)


def one(conn: psycopg.Connection, query: str, *params: Any) -> tuple[Any, ...]:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return tuple(row)


def report(conn: psycopg.Connection, run_id: str, slug: str, attempt: int, out: str = "{}") -> Any:
    """complete_tasks for attempt ``attempt`` of task (run, slug, 0): (status, outcome, reason)."""
    return one(
        conn,
        "select status, outcome, reason from pgflow.complete_tasks("
        " array[%s::uuid], array[%s], array[0], array[%s::jsonb], array[%s])",
        run_id, slug, out, attempt,
    )  # fmt: skip


def step(conn: psycopg.Connection, run_id: str, slug: str) -> tuple[Any, ...]:
    """(status, remaining_deps, output) of the step state."""
    query = "select status, remaining_deps, output from pgflow.step_states where run_id = %s and step_slug = %s"  # noqa: E501
    return one(conn, query, run_id, slug)


def run_row(conn: psycopg.Connection, run_id: str) -> tuple[Any, ...]:
    """(status, remaining_steps, paused_at is null) of the run."""
    query = "select status, remaining_steps, paused_at is null from pgflow.runs where run_id = %s"
    return one(conn, query, run_id)


def counts(conn: psycopg.Connection, run_id: str, slug: str) -> tuple[Any, ...]:
    """(tasks of the step, messages in the queue)."""
    return one(
        conn,
        f"select (select count(*) from pgflow.step_tasks where run_id = %s and step_slug = %s),"
        f" (select count(*) from pgmq.q_{FLOW})",
        run_id, slug,
    )  # fmt: skip


def refused(outcome: Any, message: str) -> bool:
    """The verb raised 55000 with ``message``."""
    assert isinstance(outcome, psycopg.errors.ObjectNotInPrerequisiteState), outcome
    return outcome.diag.message_primary == message


def race(
    observer: psycopg.Connection, dsn: str, first: Call, second: Call, must_wait: bool = True
) -> tuple[Any, Any]:
    """``first`` in a transaction held open; ``second`` on another session waits for it (or,
    unless must_wait, finishes); commit. Both results (a 55000 error as second's result)."""
    with connect(dsn, autocommit=False) as one, connect(dsn, autocommit=True) as two:
        result = first(one)
        job = Background(two, second)
        if must_wait:
            waits_for(observer, job, one)
        else:
            wait_until_done_or_blocked(observer, job)
        one.commit()
        try:
            return result, job.join()
        except psycopg.errors.ObjectNotInPrerequisiteState as exc:
            return result, exc


def chain(conn: psycopg.Connection) -> str:
    """A run of a -> b with a claimed (attempt 1)."""
    run_id = make_dag(conn, {"a": [], "b": ["a"]})
    assert claim(conn) == [("a", 1)]
    return run_id


# ------------------------------------------------ 1. pause_run vs complete_tasks


@pytest.mark.parametrize("pause_first", [True, False])
def test_pause_and_a_completion_both_apply_and_the_dependent_never_runs_while_paused(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, pause_first: bool
) -> None:
    run_id = chain(pgflow_conn)
    pause: Call = lambda c: verb(c, "pause_run", run_id, "started")  # noqa: E731
    done: Call = lambda c: complete(c, run_id, "a")  # noqa: E731
    first, second = race(
        pgflow_conn, pgflow_dsn, *((pause, done) if pause_first else (done, pause))
    )
    paused, completed = (first, second) if pause_first else (second, first)
    assert (paused, completed) == (("paused", True, None), ("completed", "completed", None))

    assert run_row(pgflow_conn, run_id) == ("paused", 1, False)
    assert step(pgflow_conn, run_id, "a") == ("completed", 0, {})
    assert claim(pgflow_conn) == []
    later = Counter({("run:paused", None): 1, ("step:completed", "a"): 1})
    if pause_first:  # b became ready in a paused run: not started
        assert step(pgflow_conn, run_id, "b") == ("created", 0, None)
        assert counts(pgflow_conn, run_id, "b") == (0, 0)
    else:  # b started before the pause, which parked its queued task
        assert task(pgflow_conn, run_id, "b") == ("queued", 0, "archive")
        later[("step:started", "b")] = 1
    assert events(pgflow_conn, run_id) == started_events("a") + later

    # resume: b runs, once, either way
    assert verb(pgflow_conn, "resume_run", run_id) == ("started", True, None)
    assert task(pgflow_conn, run_id, "b") == ("queued", 0, "queue")
    assert counts(pgflow_conn, run_id, "b") == (1, 1)
    assert claim(pgflow_conn) == [("b", 1)]
    assert complete(pgflow_conn, run_id, "b") == ("completed", "completed", None)
    assert run_row(pgflow_conn, run_id) == ("completed", 0, True)
    assert events(pgflow_conn, run_id) == started_events("a", "b") + Counter(
        {("run:paused", None): 1, ("run:resumed", None): 1, ("step:completed", "a"): 1}
    ) + Counter({("step:completed", "b"): 1, ("run:completed", None): 1})


# ------------------------------------------------ 2. pause_run vs fail_tasks


@pytest.mark.parametrize("expected", ["started", None])
def test_exhausting_failure_first_a_waiting_pause_is_a_no_op(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, expected: str | None
) -> None:
    run_id = make_dag(pgflow_conn, {"a": []}, max_attempts=1)
    assert claim(pgflow_conn) == [("a", 1)]
    failed, paused = race(
        pgflow_conn,
        pgflow_dsn,
        lambda c: fail(c, run_id, "a"),
        lambda c: verb(c, "pause_run", run_id, expected),
    )
    assert failed == ("failed", "failed", "exhausted")
    if expected is None:
        assert refused(paused, f"pause_run: run {run_id} is failed")
    else:
        assert paused == ("failed", False, "run is failed, not started: nothing done")
    assert run_row(pgflow_conn, run_id) == ("failed", 1, True)
    assert events(pgflow_conn, run_id) == started_events("a") + FAILED


def test_pause_first_a_waiting_exhausting_failure_fails_the_paused_run(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    run_id = make_dag(pgflow_conn, {"a": []}, max_attempts=1)
    assert claim(pgflow_conn) == [("a", 1)]
    assert race(
        pgflow_conn,
        pgflow_dsn,
        lambda c: verb(c, "pause_run", run_id),
        lambda c: fail(c, run_id, "a"),
    ) == (("paused", True, None), ("failed", "failed", "exhausted"))
    assert run_row(pgflow_conn, run_id) == ("failed", 1, True)  # paused_at cleared
    assert task(pgflow_conn, run_id, "a") == ("failed", 1, "archive")
    assert events(pgflow_conn, run_id) == started_events("a") + FAILED + Counter(
        {("run:paused", None): 1}
    )


# ------------------------------------------------ 3. resume_run vs complete_tasks


@pytest.mark.parametrize("resume_first", [True, False])
def test_resume_and_a_completion_start_the_ready_dependent_once(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, resume_first: bool
) -> None:
    run_id = chain(pgflow_conn)
    assert verb(pgflow_conn, "pause_run", run_id) == ("paused", True, None)
    resume: Call = lambda c: verb(c, "resume_run", run_id, "paused")  # noqa: E731
    done: Call = lambda c: complete(c, run_id, "a")  # noqa: E731
    pair = (resume, done) if resume_first else (done, resume)
    first, second = race(pgflow_conn, pgflow_dsn, *pair)
    resumed, completed = (first, second) if resume_first else (second, first)
    assert (resumed, completed) == (("started", True, None), ("completed", "completed", None))

    assert run_row(pgflow_conn, run_id) == ("started", 1, True)
    assert task(pgflow_conn, run_id, "b") == ("queued", 0, "queue")
    assert counts(pgflow_conn, run_id, "b") == (1, 1)
    assert events(pgflow_conn, run_id) == started_events("a", "b") + Counter(
        {("run:paused", None): 1, ("run:resumed", None): 1, ("step:completed", "a"): 1}
    )


# ------------------------------------------------ 4. retry_run vs a late report


@pytest.mark.parametrize("retry_first", [True, False])
def test_a_late_report_of_an_attempt_from_before_the_retry_is_ignored(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, retry_first: bool
) -> None:
    # a and b (one attempt each) claimed; b fails the run, a's handler (attempt 1) runs on
    run_id = make_dag(pgflow_conn, {"a": [], "b": []}, max_attempts=1)
    assert claim(pgflow_conn) == [("a", 1), ("b", 1)]
    assert fail(pgflow_conn, run_id, "b") == ("failed", "failed", "exhausted")
    retry: Call = lambda c: verb(c, "retry_run", run_id, "failed")  # noqa: E731
    late: Call = lambda c: report(c, run_id, "a", 1, '"late"')  # noqa: E731
    if retry_first:  # the new task goes on from attempt 1, not claimed yet: not started
        assert race(pgflow_conn, pgflow_dsn, retry, late) == (
            ("started", True, None),
            ("queued", "ignored", "task_not_started"),
        )
    else:
        assert race(pgflow_conn, pgflow_dsn, late, retry) == (
            ("cancelled", "ignored", "run_failed"),
            ("started", True, None),
        )

    assert task(pgflow_conn, run_id, "a") == ("queued", 1, "queue")
    assert claim(pgflow_conn) == [("a", 2), ("b", 2)]
    # the old attempt, reported again, is stale; the new one runs on and completes
    assert late(pgflow_conn) == ("started", "ignored", "stale_attempt")
    assert task(pgflow_conn, run_id, "a") == ("started", 2, "queue")
    assert report(pgflow_conn, run_id, "a", 2, '"new"') == ("completed", "completed", None)
    assert report(pgflow_conn, run_id, "b", 2) == ("completed", "completed", None)
    assert run_row(pgflow_conn, run_id) == ("completed", 0, True)
    assert step(pgflow_conn, run_id, "a") == ("completed", 0, "new")
    failed_b = Counter({(e, "b" if s else None): n for (e, s), n in FAILED.items()})
    assert events(pgflow_conn, run_id) == started_events("a", "b", "a", "b") + failed_b + Counter(
        {("step:cancelled", "a"): 1, ("run:retried", None): 1, ("run:completed", None): 1}
    ) + Counter({(e, s): 1 for e in ("step:reset", "step:completed") for s in ("a", "b")})


# ------------------------------------------------ 5. skip_step vs the parent's report


@pytest.mark.parametrize("skip_first", [True, False])
def test_skip_of_a_created_step_and_its_parents_completion_release_once(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, skip_first: bool
) -> None:
    run_id = make_dag(pgflow_conn, {"a": [], "b": ["a"], "c": ["b"]})
    assert claim(pgflow_conn) == [("a", 1)]
    done: Call = lambda c: complete(c, run_id, "a")  # noqa: E731
    skip: Call = lambda c: one(  # noqa: E731
        c, "select status, changed, detail from pgflow.skip_step(%s, 'b', 'alice', 'r')", run_id
    )
    if skip_first:  # b skipped (c released, started); a's completion releases nothing more
        assert race(pgflow_conn, pgflow_dsn, skip, done) == (
            ("started", True, None),
            ("completed", "completed", None),
        )
        assert step(pgflow_conn, run_id, "b")[0] == "skipped"
        assert run_row(pgflow_conn, run_id) == ("started", 1, True)
        todo, later = ["c"], Counter({("step:skipped", "b"): 1})
    else:  # b started by a's completion (c waits for it): b cannot be skipped any more
        completed, skipped = race(pgflow_conn, pgflow_dsn, done, skip)
        assert completed == ("completed", "completed", None)
        message = f"skip_step: step 'b' of run {run_id} is started (the run is started)"
        assert refused(skipped, message)
        assert step(pgflow_conn, run_id, "b") == ("started", 0, None)
        assert step(pgflow_conn, run_id, "c") == ("created", 1, None)
        assert run_row(pgflow_conn, run_id) == ("started", 2, True)
        todo, later = ["b", "c"], Counter({("step:started", "b"): 1})
    for slug in todo:
        assert counts(pgflow_conn, run_id, slug)[0] == 1
        assert claim(pgflow_conn) == [(slug, 1)]
        assert complete(pgflow_conn, run_id, slug) == ("completed", "completed", None)
        later[("step:completed", slug)] = 1
    assert step(pgflow_conn, run_id, "c") == ("completed", 0, {})
    assert run_row(pgflow_conn, run_id) == ("completed", 0, True)
    assert events(pgflow_conn, run_id) == started_events("a", "c") + later + Counter(
        {("step:completed", "a"): 1, ("run:completed", None): 1}
    )


# ------------------------------------------------ 6. complete_step vs the task's report


@pytest.mark.parametrize("operator_first", [True, False])
def test_complete_step_and_the_workers_report_keep_one_output(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, operator_first: bool
) -> None:
    run_id = chain(pgflow_conn)
    by_hand: Call = lambda c: one(  # noqa: E731
        c,
        "select status, changed, detail from pgflow.complete_step("
        " %s, 'a', '\"operator\"'::jsonb, 'alice', 'stuck')",
        run_id,
    )
    done: Call = lambda c: report(c, run_id, "a", 1, '"worker"')  # noqa: E731
    if operator_first:
        assert race(pgflow_conn, pgflow_dsn, by_hand, done) == (
            ("started", True, None),
            ("cancelled", "ignored", "task_cancelled"),
        )
    else:
        completed, by_hand_result = race(pgflow_conn, pgflow_dsn, done, by_hand)
        assert completed == ("completed", "completed", None)
        message = f"complete_step: step 'a' of run {run_id} is completed (the run is started)"
        assert refused(by_hand_result, message)

    kept = "operator" if operator_first else "worker"
    assert step(pgflow_conn, run_id, "a") == ("completed", 0, kept)
    a_status = "cancelled" if operator_first else "completed"
    assert task(pgflow_conn, run_id, "a") == (a_status, 1, "archive")
    assert task(pgflow_conn, run_id, "b") == ("queued", 0, "queue")
    assert counts(pgflow_conn, run_id, "b") == (1, 1)
    assert events(pgflow_conn, run_id) == started_events("a", "b") + Counter(
        {("step:completed", "a"): 1}
    )
    query = "select actor from pgflow.run_events where run_id = %s and event = 'step:completed'"
    assert one(pgflow_conn, query, run_id) == ("alice" if operator_first else f"worker:{WORKER}",)


# ------------------------------------------------ 7. pause_run vs the stalled-task sweep


@pytest.mark.parametrize("pause_first", [True, False])
def test_a_stalled_task_of_a_run_being_paused_is_not_left_claimable(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, pause_first: bool
) -> None:
    """Root step a claimed an hour ago (stalled), b queued. Whichever commits first, the
    paused run ends with no visible message; the sweep requeues a at most once."""
    run_id = make_dag(pgflow_conn, {"a": [], "b": []})
    assert claim(pgflow_conn, qty=1) == [("a", 1)]
    pgflow_conn.execute(
        "update pgflow.step_tasks set queued_at = queued_at - interval '2 hours',"
        " started_at = now() - interval '1 hour' where run_id = %s and step_slug = 'a'",
        (run_id,),
    )
    pause: Call = lambda c: verb(c, "pause_run", run_id, "started")  # noqa: E731
    pair = (pause, sweep) if pause_first else (sweep, pause)
    # the sweep skips locked rows, so neither has to wait for the other
    first, second = race(pgflow_conn, pgflow_dsn, *pair, must_wait=False)
    paused, swept = (first, second) if pause_first else (second, first)
    assert paused == ("paused", True, None)
    if pause_first:  # not requeued while the run is paused: left to the sweep after resume
        assert swept == 0
        assert task(pgflow_conn, run_id, "a") == ("started", 1, "queue")
    else:  # requeued before the pause, which parks it with the run's other queued task
        assert swept == 1
        assert task(pgflow_conn, run_id, "a") == ("queued", 1, "archive")
    assert task(pgflow_conn, run_id, "b") == ("queued", 0, "archive")
    visible = f"select count(*) from pgmq.q_{FLOW} where vt <= clock_timestamp()"
    assert one(pgflow_conn, visible) == (0,)
    assert claim(pgflow_conn) == []
    assert sweep(pgflow_conn) == 0

    assert verb(pgflow_conn, "resume_run", run_id) == ("started", True, None)
    assert sweep(pgflow_conn) == (1 if pause_first else 0)
    assert claim(pgflow_conn) == [("a", 2), ("b", 1)]
    assert events(pgflow_conn, run_id) == started_events("a", "b") + Counter(
        {("run:paused", None): 1, ("run:resumed", None): 1, ("task:requeued", "a"): 1}
    )
