"""pgflow.AsyncClient against a real database, as tests/integration/test_client.py does
for Client; tasks are processed through the SQL API."""

from __future__ import annotations

import asyncio
import threading
import uuid

import psycopg
import pytest
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from pgflow import AsyncClient, FlowNotFound, RunAlreadyExists, RunNotFound, RunTimeout
from pgflow.dsl import Flow
from tests.integration.sql_worker import define_two_steps, process_queued_tasks


def test_start_flow_returns_the_run_with_its_steps(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    async def main():
        async with AsyncClient(pgflow_dsn) as client:
            return await client.start_flow("two_steps", {"n": 2})

    state = asyncio.run(main())

    assert state.status == "started"
    assert state.input == {"n": 2}
    assert [(s.step_slug, s.status) for s in state.steps] == [
        ("first", "started"),
        ("second", "created"),
    ]
    assert state.remaining_steps == 2
    uuid.UUID(state.run_id)


def test_start_flow_accepts_a_flow_object_and_a_chosen_run_id(pgflow_dsn, pgflow_conn):
    flow = Flow("from_dsl")

    @flow.step()
    def only(input):
        return input

    pgflow_conn.execute(
        "select pgflow.ensure_flow_compiled(%s, %s)", (flow.slug, Jsonb(flow.shape()))
    )
    run_id = uuid.uuid4()

    async def main():
        async with AsyncClient(pgflow_dsn) as client:
            return await client.start_flow(flow, [1, 2], run_id=run_id)

    state = asyncio.run(main())

    assert state.run_id == str(run_id)
    assert state.flow_slug == "from_dsl"


def test_unknown_flow_raises_flow_not_found(pgflow_dsn):
    async def main():
        async with AsyncClient(pgflow_dsn) as client:
            await client.start_flow("no_such_flow", {})

    with pytest.raises(FlowNotFound, match="no_such_flow"):
        asyncio.run(main())


def test_reusing_a_run_id_raises_run_already_exists(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = uuid.uuid4()

    async def main():
        async with AsyncClient(pgflow_dsn, max_connections=1) as client:
            await client.start_flow("two_steps", {}, run_id=run_id)
            with pytest.raises(RunAlreadyExists):
                await client.start_flow("two_steps", {}, run_id=run_id)
            # the client (and its only pooled connection) stays usable after the error
            return await client.get_run(run_id)

    assert asyncio.run(main()).run_id == str(run_id)


def test_get_run_of_unknown_or_malformed_id_raises_run_not_found(pgflow_dsn):
    async def main():
        async with AsyncClient(pgflow_dsn) as client:
            with pytest.raises(RunNotFound):
                await client.get_run(uuid.uuid4())
            with pytest.raises(RunNotFound, match="not a run id"):
                await client.get_run("not-a-uuid")

    asyncio.run(main())


def test_wait_for_run_returns_output_once_tasks_complete(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    def handler(step_slug, task_input, flow_input):
        if step_slug == "first":
            return flow_input["n"] * 10
        return {"total": task_input["first"] + 1}

    # A "worker" in another thread, with its own connection.
    def work():
        with psycopg.connect(pgflow_dsn, autocommit=True) as conn:
            while process_queued_tasks(conn, "two_steps", handler):
                pass

    async def main():
        async with AsyncClient(pgflow_dsn) as client:
            run_id = (await client.start_flow("two_steps", {"n": 4})).run_id
            thread = threading.Thread(target=work)
            thread.start()
            try:
                return await client.wait_for_run(
                    run_id, timeout_seconds=20, poll_interval_seconds=0.02
                )
            finally:
                thread.join()

    final = asyncio.run(main())

    assert final.status == "completed"
    assert final.output == {"second": {"total": 41}}
    assert final.step("first").output == 40
    assert final.duration_seconds is not None


def test_wait_for_run_raises_run_timeout_while_nobody_works(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    async def main():
        async with AsyncClient(pgflow_dsn) as client:
            run_id = (await client.start_flow("two_steps", {})).run_id
            await client.wait_for_run(run_id, timeout_seconds=0.3, poll_interval_seconds=0.05)

    with pytest.raises(RunTimeout, match="2 steps remaining"):
        asyncio.run(main())


def test_failed_run_reports_the_failed_step(pgflow_dsn, pgflow_conn):
    pgflow_conn.execute("select pgflow.create_flow('fragile', max_attempts => 1)")
    pgflow_conn.execute("select pgflow.add_step('fragile', 'only')")

    async def main():
        async with AsyncClient(pgflow_dsn) as client:
            run_id = (await client.start_flow("fragile", {})).run_id
            worker_id = uuid.uuid4()
            pgflow_conn.execute("select pgflow.register_worker(%s, 'fragile', 't')", (worker_id,))
            msg = pgflow_conn.execute("select msg_id from pgmq.read('fragile', 30, 1)").fetchone()
            pgflow_conn.execute(
                "select pgflow.start_tasks('fragile', %s, %s)", ([msg[0]], worker_id)
            )
            pgflow_conn.execute("select pgflow.fail_task(%s, 'only', 0, 'disk full')", (run_id,))
            return await client.wait_for_run(run_id, timeout_seconds=5)

    final = asyncio.run(main())

    assert final.status == "failed"
    assert final.failed_step is not None
    assert final.failed_step.step_slug == "only"
    assert "disk full" in final.failed_step.error_message


def test_task_counts_and_list_runs(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    define_two_steps(pgflow_conn, "other")

    async def main():
        async with AsyncClient(pgflow_dsn) as client:
            first = (await client.start_flow("two_steps", {"n": 1})).run_id
            second = (await client.start_flow("two_steps", {"n": 2})).run_id
            await client.start_flow("other", {})
            process_queued_tasks(pgflow_conn, "two_steps", lambda *a: 1)
            counts = await client.task_counts(first)
            latest_two_steps = await client.list_runs(flow_slug="two_steps")
            started_only = await client.list_runs(status="started", limit=1)
            return first, second, counts, latest_two_steps, started_only

    first, second, counts, latest_two_steps, started_only = asyncio.run(main())

    assert counts == {"first": {"completed": 1}, "second": {"completed": 1}}
    assert {run.run_id for run in latest_two_steps} == {first, second}
    assert all(run.status == "completed" for run in latest_two_steps)
    assert [run.flow_slug for run in started_only] == ["other"]


def test_concurrent_calls_share_the_clients_pool(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    async def main():
        async with AsyncClient(pgflow_dsn, max_connections=2) as client:
            starts = [client.start_flow("two_steps", {"i": i}) for i in range(10)]
            return await asyncio.gather(*starts)

    states = asyncio.run(main())

    assert sorted(state.input["i"] for state in states) == list(range(10))
    assert len({state.run_id for state in states}) == 10
    (runs,) = pgflow_conn.execute(
        "select count(*) from pgflow.runs where flow_slug = 'two_steps'"
    ).fetchone()
    assert runs == 10


def test_client_can_use_a_given_connection_and_leaves_it_open(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    async def main():
        conn = await psycopg.AsyncConnection.connect(pgflow_dsn, autocommit=True)
        async with conn:
            async with AsyncClient(connection=conn) as client:
                run_id = (await client.start_flow("two_steps", {})).run_id
                assert (await client.get_run(run_id)).status == "started"
            return conn.closed

    assert asyncio.run(main()) is False


def test_client_can_use_a_given_pool_and_leaves_it_open(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    async def main():
        async with AsyncConnectionPool(
            pgflow_dsn, min_size=1, max_size=2, kwargs={"autocommit": True}, open=False
        ) as pool:
            async with AsyncClient(pool=pool) as client:
                run_id = (await client.start_flow("two_steps", {})).run_id
            assert not pool.closed
            # the pool still serves its owner after the client is done
            async with pool.connection() as conn:
                query = "select status from pgflow.runs where run_id = %s"
                cur = await conn.execute(query, (run_id,))
                return await cur.fetchone()

    assert asyncio.run(main()) == ("started",)


def test_a_closed_client_opens_a_new_pool_on_next_use(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    async def main():
        client = AsyncClient(pgflow_dsn)
        first = await client.start_flow("two_steps", {})
        await client.close()
        again = await client.get_run(first.run_id)
        await client.close()
        return first, again

    first, again = asyncio.run(main())

    assert again.run_id == first.run_id
