"""Limit options of pgflow.dsl against the database: concurrency_limit, on_limit, run_timeout
and max_in_flight compile, verify, round-trip through to_sql() and sync like other options."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from psycopg.types.json import Jsonb

from pgflow.dsl import Flow, Job
from pgflow.worker.startup import compile_flow, sync_options


def handler(input, ctx):
    return input


def billing() -> Flow:
    """Every limit option, on every kind of step."""
    flow = Flow("billing", timeout=30, concurrency_limit=1, on_limit="reject", run_timeout=3600)
    flow.step(slug="charge", max_in_flight=5)(handler)
    flow.array(slug="lines", depends_on=["charge"], max_in_flight=2)(handler)
    flow.map(slug="each", array="lines", max_in_flight=1, start_delay=3)(handler)
    flow.step(slug="approve", depends_on=["each"], wait_for="ok", max_in_flight=4)(handler)
    flow.step(slug="done", depends_on=["approve"])(handler)
    return flow


def queued() -> Flow:
    """A limit with on_limit given as its default, no run timeout."""
    flow = Flow("queued", concurrency_limit=3, on_limit="queue")
    flow.step(slug="only")(handler)
    return flow


def step_limits_only() -> Flow:
    """max_in_flight without any flow option."""
    flow = Flow("step_limits_only")
    flow.map(slug="each", max_in_flight=10)(handler)
    flow.step(slug="total", depends_on=["each"])(handler)
    return flow


def deadline_only() -> Flow:
    @Job("deadline_only", run_timeout=60)
    def deadline_only(input):
        return input

    return deadline_only


FLOWS = [billing, queued, step_limits_only, deadline_only]


def ensure(conn: psycopg.Connection, flow: Flow) -> dict:
    return conn.execute(
        "select pgflow.ensure_flow_compiled(%s, %s)", (flow.slug, Jsonb(flow.shape()))
    ).fetchone()[0]


def db_shape(conn: psycopg.Connection, slug: str) -> dict:
    return conn.execute("select pgflow._get_flow_shape(%s)", (slug,)).fetchone()[0]


def definition(conn: psycopg.Connection, slug: str) -> dict:
    """Every stored column of a flow's definition (rows of flows, steps, deps), timestamps aside."""
    flow_row = conn.execute(
        "select opt_max_attempts, opt_base_delay, opt_timeout, opt_concurrency_limit, "
        "opt_on_limit, opt_run_timeout from pgflow.flows where flow_slug = %s",
        (slug,),
    ).fetchone()
    steps = conn.execute(
        "select step_slug, step_type, step_index, deps_count, opt_max_attempts, opt_base_delay, "
        "opt_timeout, opt_start_delay, opt_max_in_flight, required_input_pattern, "
        "forbidden_input_pattern, when_unmet, when_exhausted from pgflow.steps "
        "where flow_slug = %s order by step_index",
        (slug,),
    ).fetchall()
    deps = conn.execute(
        "select step_slug, dep_slug from pgflow.deps where flow_slug = %s order by 1, 2", (slug,)
    ).fetchall()
    waits = conn.execute(
        "select step_slug, kind, signal_name from pgflow.step_waits where flow_slug = %s "
        "order by 1",
        (slug,),
    ).fetchall()
    return {"flow": flow_row, "steps": steps, "deps": deps, "waits": waits}


def without_options(shape: dict) -> dict:
    """The shape as _get_flow_shape returns it: no flow or step options."""
    return {"steps": [{k: v for k, v in s.items() if k != "options"} for s in shape["steps"]]}


def sync(conn: psycopg.Connection, flow: Flow) -> list[dict]:
    return conn.execute(
        "select pgflow.sync_flow_options(%s, %s)", (flow.slug, Jsonb(flow.shape()))
    ).fetchone()[0]


@pytest.mark.parametrize("make_flow", FLOWS)
def test_shape_compiles_then_verifies(pgflow_conn, make_flow):
    assert ensure(pgflow_conn, make_flow()) == {"status": "compiled", "differences": []}
    assert ensure(pgflow_conn, make_flow()) == {"status": "verified", "differences": []}


@pytest.mark.parametrize("make_flow", FLOWS)
def test_stored_shape_equals_the_dsl_shape(pgflow_conn, make_flow):
    flow = make_flow()
    ensure(pgflow_conn, flow)

    stored = db_shape(pgflow_conn, flow.slug)

    assert stored == without_options(flow.shape())
    compared = pgflow_conn.execute(
        "select pgflow._compare_flow_shapes(%s, %s)", (Jsonb(flow.shape()), Jsonb(stored))
    ).fetchone()[0]
    assert compared == []


@pytest.mark.parametrize("make_flow", FLOWS)
def test_stored_options_are_the_dsl_options_or_the_sql_defaults(pgflow_conn, make_flow):
    flow = make_flow()
    ensure(pgflow_conn, flow)

    stored = definition(pgflow_conn, flow.slug)

    assert stored["flow"][3:] == (
        flow.concurrency_limit,
        flow.on_limit if flow.on_limit is not None else "queue",
        flow.run_timeout,
    )
    assert [row[8] for row in stored["steps"]] == [step.max_in_flight for step in flow.steps]


def test_billing_stores_exactly_what_it_says(pgflow_conn):
    ensure(pgflow_conn, billing())

    stored = definition(pgflow_conn, "billing")

    assert stored["flow"] == (3, 5, 30, 1, "reject", 3600)
    assert [(row[0], row[7], row[8]) for row in stored["steps"]] == [
        ("charge", None, 5),
        ("lines", None, 2),
        ("each", 3, 1),
        ("approve", None, 4),
        ("done", None, None),
    ]


@pytest.mark.parametrize("make_flow", FLOWS)
def test_to_sql_builds_the_same_definition_as_ensure_flow_compiled(pgflow_conn, make_flow):
    flow = make_flow()
    ensure(pgflow_conn, flow)
    compiled = definition(pgflow_conn, flow.slug)
    compiled_shape = db_shape(pgflow_conn, flow.slug)
    pgflow_conn.execute("select pgflow.delete_flow_and_data(%s)", (flow.slug,))
    assert definition(pgflow_conn, flow.slug)["flow"] is None

    pgflow_conn.execute(flow.to_sql())

    assert definition(pgflow_conn, flow.slug) == compiled
    assert db_shape(pgflow_conn, flow.slug) == compiled_shape
    assert ensure(pgflow_conn, flow) == {"status": "verified", "differences": []}


def _billing_without_limits() -> Flow:
    flow = Flow("billing", timeout=30)
    flow.step(slug="charge")(handler)
    flow.array(slug="lines", depends_on=["charge"])(handler)
    flow.map(slug="each", array="lines", start_delay=3)(handler)
    flow.step(slug="approve", depends_on=["each"], wait_for="ok")(handler)
    flow.step(slug="done", depends_on=["approve"])(handler)
    return flow


def test_limit_options_changed_in_code_verify_and_sync_in_place(pgflow_conn):
    ensure(pgflow_conn, _billing_without_limits())
    pgflow_conn.execute("select pgflow.start_flow('billing', '{}'::jsonb)")

    # Adding the limits is an option change, not a structure change.
    assert ensure(pgflow_conn, billing()) == {"status": "verified", "differences": []}
    changes = sync(pgflow_conn, billing())

    assert changes == [
        {"step_slug": None, "option": "concurrency_limit", "from": None, "to": 1},
        {"step_slug": None, "option": "on_limit", "from": "queue", "to": "reject"},
        {"step_slug": None, "option": "run_timeout", "from": None, "to": 3600},
        {"step_slug": "charge", "option": "max_in_flight", "from": None, "to": 5},
        {"step_slug": "lines", "option": "max_in_flight", "from": None, "to": 2},
        {"step_slug": "each", "option": "max_in_flight", "from": None, "to": 1},
        {"step_slug": "approve", "option": "max_in_flight", "from": None, "to": 4},
    ]
    assert definition(pgflow_conn, "billing")["flow"] == (3, 5, 30, 1, "reject", 3600)
    assert sync(pgflow_conn, billing()) == []
    assert pgflow_conn.execute("select count(*) from pgflow.runs").fetchone()[0] == 1

    # Removing them from the code sets them back to no limit / queue / no run timeout.
    removed = sync(pgflow_conn, _billing_without_limits())

    assert [(c["step_slug"], c["option"], c["to"]) for c in removed] == [
        (None, "concurrency_limit", None),
        (None, "on_limit", "queue"),
        (None, "run_timeout", None),
        ("charge", "max_in_flight", None),
        ("lines", "max_in_flight", None),
        ("each", "max_in_flight", None),
        ("approve", "max_in_flight", None),
    ]
    stored = definition(pgflow_conn, "billing")
    assert stored["flow"] == (3, 5, 30, None, "queue", None)
    assert [row[8] for row in stored["steps"]] == [None] * 5


def test_worker_startup_compiles_and_syncs_the_limit_options(pgflow_dsn):
    async def main() -> list[dict]:
        async with await psycopg.AsyncConnection.connect(pgflow_dsn, autocommit=True) as conn:
            assert await compile_flow(conn, _billing_without_limits(), False) == "compiled"
            assert await compile_flow(conn, billing(), False) == "verified"
            changes = await sync_options(conn, billing())
            assert await sync_options(conn, billing()) == []
            return changes

    changes = asyncio.run(main())

    assert [(c["step_slug"], c["option"]) for c in changes] == [
        (None, "concurrency_limit"),
        (None, "on_limit"),
        (None, "run_timeout"),
        ("charge", "max_in_flight"),
        ("lines", "max_in_flight"),
        ("each", "max_in_flight"),
        ("approve", "max_in_flight"),
    ]
