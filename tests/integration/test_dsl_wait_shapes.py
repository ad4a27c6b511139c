"""Wait steps of pgflow.dsl against the database: shape() and to_sql() round-trip."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from psycopg.types.json import Jsonb

from pgflow.dsl import Flow
from pgflow.errors import FlowShapeMismatch
from pgflow.worker.startup import compile_flow, sync_options


def handler(input, ctx):
    return input


def expense(**book_options) -> Flow:
    """Every kind of wait; ``book_options`` override the settings of the last step's wait."""
    flow = Flow("expense", timeout=30)
    flow.step(slug="submit")(handler)
    flow.wait("approved", depends_on=["submit"], timeout=86400, match={"level": [1, 2]})
    flow.wait("second_look", "review.done", depends_on=["approved"], on_timeout="continue")
    flow.sleep("cool_off", seconds=3600, depends_on=["second_look"])
    flow.sleep("remind", until="submit.remind_at", depends_on=["submit"], when_exhausted="skip")
    flow.sleep("at_input", until="input.due", if_={"due": "x"}, when_unmet="skip-cascade")
    options = {
        "wait_for": "paid",
        "wait_timeout": 600,
        "on_timeout": "skip",
        "signal_match": {"currency": "EUR", "note": 'it\'s \\ "ü"'},
    } | book_options
    flow.step(slug="book", depends_on=["cool_off", "remind"], **options)(handler)
    flow.array(slug="lines", depends_on=["book"], wait_for="lines.ready")(handler)
    flow.map(slug="each", array="lines")(handler)
    return flow


def ensure(conn: psycopg.Connection, flow: Flow, **kwargs) -> dict:
    extra = ", allow_data_loss => true" if kwargs.get("allow_data_loss") else ""
    return conn.execute(
        f"select pgflow.ensure_flow_compiled(%s, %s{extra})", (flow.slug, Jsonb(flow.shape()))
    ).fetchone()[0]


def db_shape(conn: psycopg.Connection, slug: str) -> dict:
    return conn.execute("select pgflow._get_flow_shape(%s)", (slug,)).fetchone()[0]


def stored_waits(conn: psycopg.Connection, slug: str) -> list[tuple]:
    return conn.execute(
        "select step_slug, kind, signal_name, signal_match, timeout_seconds, on_timeout, "
        "runs_handler, sleep_seconds, sleep_until from pgflow.step_waits "
        "where flow_slug = %s order by step_slug",
        (slug,),
    ).fetchall()


def without_options(shape: dict) -> dict:
    return {"steps": [{k: v for k, v in s.items() if k != "options"} for s in shape["steps"]]}


EXPECTED_WAITS = [
    ("approved", "signal", "approved", {"level": [1, 2]}, 86400, "fail", False, None, None),
    ("at_input", "timer", None, None, None, "fail", False, None, "input.due"),
    (
        "book",
        "signal",
        "paid",
        {"currency": "EUR", "note": 'it\'s \\ "ü"'},
        600,
        "skip",
        True,
        None,
        None,
    ),
    ("cool_off", "timer", None, None, None, "fail", False, 3600, None),
    ("lines", "signal", "lines.ready", None, None, "fail", True, None, None),
    ("remind", "timer", None, None, None, "fail", False, None, "submit.remind_at"),
    ("second_look", "signal", "review.done", None, None, "continue", False, None, None),
]


def test_dsl_shape_with_waits_compiles_then_verifies(pgflow_conn):
    flow = expense()

    assert ensure(pgflow_conn, flow) == {"status": "compiled", "differences": []}
    assert ensure(pgflow_conn, flow) == {"status": "verified", "differences": []}
    assert ensure(pgflow_conn, expense()) == {"status": "verified", "differences": []}
    assert stored_waits(pgflow_conn, "expense") == EXPECTED_WAITS


def test_stored_shape_with_waits_equals_the_dsl_shape(pgflow_conn):
    flow = expense()
    ensure(pgflow_conn, flow)

    assert db_shape(pgflow_conn, "expense") == without_options(flow.shape())


@pytest.mark.parametrize(
    ("change", "difference"),
    [
        ({"wait_timeout": 601}, '"timeout": 601'),
        ({"signal_match": {"currency": "USD"}}, '"match": {"currency": "USD"}'),
        ({"on_timeout": "fail"}, '"onTimeout": "fail"'),
        ({"wait_for": "paid.eu"}, '"signal": "paid.eu"'),
    ],
)
def test_a_changed_wait_is_a_mismatch_and_changes_nothing(pgflow_conn, change, difference):
    ensure(pgflow_conn, expense())

    result = ensure(pgflow_conn, expense(**change))

    assert result["status"] == "mismatch"
    assert len(result["differences"]) == 1
    assert result["differences"][0].startswith("Step at index 6: wait differs '{")
    assert difference in result["differences"][0].split(" vs ")[0]
    assert stored_waits(pgflow_conn, "expense") == EXPECTED_WAITS


def test_a_wait_step_that_gets_a_handler_is_a_mismatch(pgflow_conn):
    ensure(pgflow_conn, expense())
    changed = expense()
    # approved: the same signal wait, but now with a handler (wait_for on a step).
    steps = changed.shape()
    steps["steps"][1]["wait"]["handler"] = True

    result = pgflow_conn.execute(
        "select pgflow.ensure_flow_compiled('expense', %s)", (Jsonb(steps),)
    ).fetchone()[0]

    assert result["status"] == "mismatch"
    wait = '{"kind": "signal", "match": {"level": [1, 2]}, "signal": "approved", "handler": %s, '
    wait += '"timeout": 86400, "onTimeout": "fail"}'
    assert result["differences"] == [
        f"Step at index 1: wait differs '{wait % 'true'}' vs '{wait % 'false'}'"
    ]


def test_allow_data_loss_recompiles_to_the_new_waits(pgflow_conn):
    ensure(pgflow_conn, expense())
    changed = expense(wait_timeout=None, on_timeout=None, signal_match=None)

    assert ensure(pgflow_conn, changed, allow_data_loss=True)["status"] == "recompiled"
    assert db_shape(pgflow_conn, "expense") == without_options(changed.shape())


def test_to_sql_builds_the_same_definition_as_ensure_flow_compiled(pgflow_conn):
    flow = expense()
    ensure(pgflow_conn, flow)
    compiled_shape = db_shape(pgflow_conn, "expense")
    compiled_waits = stored_waits(pgflow_conn, "expense")
    pgflow_conn.execute("select pgflow.delete_flow_and_data('expense')")
    assert stored_waits(pgflow_conn, "expense") == []

    pgflow_conn.execute(flow.to_sql())

    assert db_shape(pgflow_conn, "expense") == compiled_shape
    assert stored_waits(pgflow_conn, "expense") == compiled_waits
    assert ensure(pgflow_conn, flow) == {"status": "verified", "differences": []}


def test_the_worker_compiles_and_verifies_a_flow_with_waits(pgflow_dsn):
    async def main() -> None:
        async with await psycopg.AsyncConnection.connect(pgflow_dsn, autocommit=True) as conn:
            assert await compile_flow(conn, expense(), allow_data_loss=False) == "compiled"
            assert await compile_flow(conn, expense(), allow_data_loss=False) == "verified"
            await sync_options(conn, expense())
            with pytest.raises(FlowShapeMismatch) as excinfo:
                await compile_flow(conn, expense(wait_timeout=60), allow_data_loss=False)
            assert "wait differs" in str(excinfo.value)

    asyncio.run(main())
