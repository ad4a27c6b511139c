"""start_flow with a caller-chosen run_id, called by several sessions at once.

Exactly one call creates the run; every other one gets the error a sequential second call
gets (unique_violation, "Run <id> already exists"), never the primary key's own message.
The interleaving is forced: the first start holds its transaction open, the others are
started and seen waiting for its lock (pg_stat_activity), then the first commits or rolls
back. (The sequential case: sql_tests/start_flow/invalid_run_id_raises_and_writes_nothing.)
"""

from __future__ import annotations

from contextlib import ExitStack

import psycopg
import pytest

from tests.integration.sessions import Background, connect, wait_until_done_or_blocked

RUN_ID = "00000000-0000-0000-0000-00000000d0d0"
CALLERS = 7  # besides the one holding its transaction open


def start(conn: psycopg.Connection, input_json: str = "{}") -> str:
    row = conn.execute(
        "select run_id::text from pgflow.start_flow('dup', %s::jsonb, %s::uuid)",
        (input_json, RUN_ID),
    ).fetchone()
    assert row is not None
    return str(row[0])


@pytest.fixture
def flow(pgflow_conn: psycopg.Connection) -> psycopg.Connection:
    pgflow_conn.execute("select pgflow.create_flow('dup')")
    pgflow_conn.execute("select pgflow.add_step('dup', 'first')")
    pgflow_conn.execute("select pgflow.add_step('dup', 'second', array['first'])")
    return pgflow_conn


def waiting_starts(dsn: str, observer: psycopg.Connection, stack: ExitStack) -> list[Background]:
    jobs = [
        Background(
            stack.enter_context(connect(dsn, autocommit=True)),
            lambda c, i=i: start(c, f'{{"caller": {i}}}'),
        )
        for i in range(CALLERS)
    ]
    for job in jobs:
        assert wait_until_done_or_blocked(observer, job) == "blocked"
    return jobs


def counts(conn: psycopg.Connection) -> tuple[int, int, int]:
    row = conn.execute(
        "select (select count(*)::int from pgflow.runs), "
        "(select count(*)::int from pgflow.step_states), "
        "(select count(*)::int from pgflow.step_tasks)"
    ).fetchone()
    assert row is not None
    return row[0], row[1], row[2]


def test_concurrent_starts_with_one_run_id_make_one_run_and_one_clear_error(
    flow: psycopg.Connection, pgflow_dsn: str
) -> None:
    with ExitStack() as stack:
        holder = stack.enter_context(connect(pgflow_dsn, autocommit=False))
        assert start(holder, '{"caller": "holder"}') == RUN_ID  # inserted, not committed
        jobs = waiting_starts(pgflow_dsn, flow, stack)
        holder.commit()

        for job in jobs:
            with pytest.raises(psycopg.errors.UniqueViolation) as raised:
                job.join()
            assert raised.value.diag.message_primary == f"Run {RUN_ID} already exists"
            assert raised.value.diag.constraint_name is None  # not runs_pkey's own error
    assert counts(flow) == (1, 2, 1)
    row = flow.execute("select input from pgflow.runs where run_id = %s", (RUN_ID,)).fetchone()
    assert row == ({"caller": "holder"},)


def test_a_start_waiting_on_a_start_that_rolls_back_creates_the_run(
    flow: psycopg.Connection, pgflow_dsn: str
) -> None:
    with (
        connect(pgflow_dsn, autocommit=False) as holder,
        connect(pgflow_dsn, autocommit=True) as other,
    ):
        start(holder, '{"caller": "holder"}')
        job = Background(other, start)
        assert wait_until_done_or_blocked(flow, job) == "blocked"
        holder.rollback()
        assert job.join() == RUN_ID
    assert counts(flow) == (1, 2, 1)
    row = flow.execute("select input from pgflow.runs where run_id = %s", (RUN_ID,)).fetchone()
    assert row == ({},)
