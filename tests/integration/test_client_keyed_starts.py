"""Keyed starts, concurrency limits and deadlines through pgflow.Client and AsyncClient,
against a real database: a duplicate start returns the same run and writes nothing; a
reject flow raises ConcurrencyLimitReached naming the holders; queued runs and their
slots; relative deadlines land at the database's now() + delta; expired runs are final.
Time is moved by UPDATEs of the stored deadline: no sleeps."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from pgflow import (
    AsyncClient,
    Client,
    ConcurrencyLimitReached,
    InvalidStartOption,
    RunNotFound,
    RunSlot,
    RunTimeout,
    StartedRun,
    WrongIsolationLevel,
)
from tests.integration.failing_runs import fail_attempt
from tests.integration.sql_worker import define_two_steps


def define_limited(conn: psycopg.Connection, slug: str, on_limit: str, limit: int = 1) -> None:
    """A flow with one step ``only`` and a concurrency limit."""
    conn.execute(
        "select pgflow.create_flow(%s, max_attempts => 1, concurrency_limit => %s, on_limit => %s)",
        (slug, limit, on_limit),
    )
    conn.execute("select pgflow.add_step(%s, 'only')", (slug,))


def count(conn: psycopg.Connection, sql: str, *params: object) -> int:
    row = conn.execute(sql, params).fetchone()
    assert row is not None
    return int(row[0])


def queue_length(conn: psycopg.Connection, slug: str) -> int:
    return count(conn, f'select count(*) from pgmq."q_{slug}"')


def test_a_duplicate_start_returns_the_same_run_and_writes_nothing(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    with Client(pgflow_dsn) as client:
        first = client.start_flow("two_steps", {"n": 1}, idempotency_key="order-42")
        again = client.start_flow("two_steps", {"n": 2}, idempotency_key="order-42")
        other = client.start_flow("two_steps", {"n": 3}, idempotency_key="order-43")

    assert isinstance(first, StartedRun)
    assert (first.duplicate, again.duplicate, other.duplicate) == (False, True, False)
    assert again.run_id == first.run_id != other.run_id
    assert again.input == {"n": 1}  # the first run, as it is
    assert again.idempotency_key == "order-42"
    # the state was read after the start: its steps are there
    assert [(s.step_slug, s.status) for s in again.steps] == [
        ("first", "started"),
        ("second", "created"),
    ]
    assert (
        count(pgflow_conn, "select count(*) from pgflow.runs where idempotency_key = 'order-42'")
        == 1
    )
    assert (
        count(pgflow_conn, "select count(*) from pgflow.step_tasks where run_id = %s", first.run_id)
        == 1
    )
    assert queue_length(pgflow_conn, "two_steps") == 2  # one root task per run, not three


def test_a_reject_flow_refuses_a_start_over_its_limit_naming_the_holder(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "reject")

    with Client(pgflow_dsn) as client:
        holder = client.start_flow("billing", {}, concurrency_key="account:7")
        with pytest.raises(ConcurrencyLimitReached, match="held by run") as refused:
            client.start_flow("billing", {}, concurrency_key="account:7", idempotency_key="x")
        elsewhere = client.start_flow("billing", {}, concurrency_key="account:8")
        unkeyed = client.start_flow("billing", {})

    assert holder.status == "started"
    assert refused.value.holders == [holder.run_id]
    assert refused.value.concurrency_key == "account:7"
    assert refused.value.flow_slug == "billing"
    assert (elsewhere.status, unkeyed.status) == ("started", "started")  # other key, no key
    assert count(pgflow_conn, "select count(*) from pgflow.runs where idempotency_key = 'x'") == 0
    assert count(pgflow_conn, "select count(*) from pgflow.runs") == 3


def test_queued_runs_and_their_slots(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "queue")

    with Client(pgflow_dsn) as client:
        holder = client.start_flow("billing", {}, concurrency_key="account:7")
        second = client.start_flow("billing", {}, concurrency_key="account:7")
        third = client.start_flow("billing", {}, concurrency_key="account:7")
        unkeyed = client.start_flow("billing", {})
        slots = [client.get_run_slot(r.run_id) for r in (holder, second, third, unkeyed)]
        with pytest.raises(RunNotFound):
            client.get_run_slot(uuid.uuid4())
        with pytest.raises(RunTimeout, match="still queued"):
            client.wait_for_run(second.run_id, timeout_seconds=0.05, poll_interval_seconds=0.01)

    assert [r.status for r in (holder, second, third)] == ["started", "queued", "queued"]
    assert not second.finished
    assert second.queued_at is not None and holder.queued_at is None
    assert [(s.step_slug, s.status) for s in second.steps] == [("only", "created")]
    assert (
        count(
            pgflow_conn, "select count(*) from pgflow.step_tasks where run_id = %s", second.run_id
        )
        == 0
    )
    assert slots == [
        RunSlot("account:7", 1, "queue", None, (holder.run_id,)),
        RunSlot("account:7", 1, "queue", 1, (holder.run_id,)),
        RunSlot("account:7", 1, "queue", 2, (holder.run_id,)),
        None,
    ]


def test_retry_of_a_failed_run_whose_slot_was_taken_raises_the_limit(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "queue")

    with Client(pgflow_dsn) as client:
        first = client.start_flow("billing", {}, concurrency_key="account:7")
        second = client.start_flow("billing", {}, concurrency_key="account:7")
        assert fail_attempt(pgflow_conn, "billing", "boom") == first.run_id  # frees the slot
        assert client.get_run(second.run_id).status == "started"  # took it
        with pytest.raises(ConcurrencyLimitReached) as refused:
            client.retry_run(first.run_id, actor="ops")
        assert client.get_run(first.run_id).status == "failed"  # nothing changed

    assert refused.value.holders == [second.run_id]
    assert refused.value.concurrency_key == "account:7"


def test_a_limited_key_outside_read_committed_is_refused(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "queue")

    with psycopg.connect(pgflow_dsn) as conn:
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        client = Client(connection=conn)
        with pytest.raises(WrongIsolationLevel, match="READ COMMITTED"):
            client.start_flow("billing", {}, concurrency_key="account:7")
        conn.rollback()

    assert count(pgflow_conn, "select count(*) from pgflow.runs") == 0


@pytest.mark.parametrize(
    ("deadline", "delta"),
    [
        (timedelta(hours=2, microseconds=1), timedelta(hours=2, microseconds=1)),
        (90, timedelta(seconds=90)),
        (0.25, timedelta(milliseconds=250)),
    ],
)
def test_a_relative_deadline_lands_at_the_database_now_plus_the_delta(
    pgflow_dsn, pgflow_conn, deadline, delta
):
    define_two_steps(pgflow_conn)

    with Client(pgflow_dsn) as client:
        state = client.start_flow("two_steps", {}, deadline=deadline)

    assert state.deadline is not None and state.started_at is not None
    assert state.deadline - state.started_at == delta  # both the transaction's now()
    assert state.duplicate is False and state.status == "started"


def test_an_absolute_deadline_is_stored_and_a_past_one_refused(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    far = datetime(2999, 1, 2, 3, 4, 5, tzinfo=UTC)

    with Client(pgflow_dsn) as client:
        state = client.start_flow("two_steps", {}, deadline=far)
        with pytest.raises(InvalidStartOption, match="not in the future"):
            client.start_flow("two_steps", {}, deadline=datetime(2000, 1, 1, tzinfo=UTC))
        deadline = client.get_run_deadline(state.run_id)
        no_deadline = client.get_run_deadline(client.start_flow("two_steps", {}).run_id)
        with pytest.raises(RunNotFound):
            client.get_run_deadline(uuid.uuid4())

    assert state.deadline == far
    assert count(pgflow_conn, "select count(*) from pgflow.runs") == 2  # nothing for the past one
    assert deadline is not None and deadline.deadline == far and not deadline.passed
    assert no_deadline is None


def test_an_expired_run_is_final(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    with Client(pgflow_dsn) as client:
        state = client.start_flow("two_steps", {}, deadline=timedelta(hours=1))
        pgflow_conn.execute(
            "update pgflow.runs set deadline = now() - interval '1 second' where run_id = %s",
            (state.run_id,),
        )
        passed = client.get_run_deadline(state.run_id)
        assert passed is not None and passed.passed and passed.seconds_left <= -1
        assert client.get_run(state.run_id).status == "started"  # until a tick expires it
        pgflow_conn.execute("select pgflow.tick()")
        final = client.wait_for_run(state.run_id, timeout_seconds=5)
        listed = client.list_runs(status="expired")

    assert final.status == "expired" and final.finished
    assert final.expired_at is not None
    assert final.duration_seconds == (final.expired_at - final.started_at).total_seconds()
    assert [s.status for s in final.steps] == ["cancelled", "cancelled"]
    assert [r.run_id for r in listed] == [state.run_id]


def test_the_async_client_starts_keyed_runs_and_reads_slots(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "queue")

    async def main() -> tuple[StartedRun, StartedRun, RunSlot | None]:
        async with AsyncClient(pgflow_dsn) as client:
            first = await client.start_flow(
                "billing", {}, idempotency_key="a", concurrency_key="account:7", deadline=60
            )
            again = await client.start_flow("billing", {}, idempotency_key="a")
            queued = await client.start_flow("billing", {}, concurrency_key="account:7")
            return first, again, await client.get_run_slot(queued.run_id)

    first, again, slot = asyncio.run(main())

    assert (first.duplicate, again.duplicate, again.run_id) == (False, True, first.run_id)
    assert first.deadline - first.started_at == timedelta(seconds=60)  # type: ignore[operator]
    assert slot == RunSlot("account:7", 1, "queue", 1, (first.run_id,))


def test_the_client_role_may_start_keyed_runs_and_read_slots_and_deadlines(
    pgflow_dsn, pgflow_conn, login_role
):
    define_limited(pgflow_conn, "billing", "queue")
    dsn = login_role("pgflow_client")

    with Client(dsn) as client:
        first = client.start_flow("billing", {}, idempotency_key="a", concurrency_key="k")
        queued = client.start_flow("billing", {}, concurrency_key="k", deadline=3600)
        slot = client.get_run_slot(queued.run_id)
        deadline = client.get_run_deadline(queued.run_id)

    assert (first.status, queued.status) == ("started", "queued")
    assert slot == RunSlot("k", 1, "queue", 1, (first.run_id,))
    assert deadline is not None and deadline.deadline == queued.deadline
