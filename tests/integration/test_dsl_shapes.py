"""pgflow.dsl against the database: shape() compiles and verifies, to_sql() builds the same."""

from __future__ import annotations

import psycopg
import pytest
from psycopg.types.json import Jsonb

from pgflow.dsl import Flow, Job


def handler(input, ctx):
    return input


def chain() -> Flow:
    flow = Flow("chain")
    flow.step(slug="first")(handler)
    flow.step(slug="second", depends_on=["first"])(handler)
    flow.step(slug="third", depends_on=["second"])(handler)
    return flow


def diamond() -> Flow:
    flow = Flow("diamond")
    flow.step(slug="top")(handler)
    flow.step(slug="right", depends_on=["top"])(handler)
    flow.step(slug="left", depends_on=["top"])(handler)
    flow.step(slug="bottom", depends_on=["right", "left"])(handler)
    return flow


def root_map() -> Flow:
    flow = Flow("root_map")
    flow.map(slug="each")(handler)
    flow.step(slug="total", depends_on=["each"])(handler)
    return flow


def dependent_map() -> Flow:
    flow = Flow("dependent_map")
    flow.array(slug="items")(handler)
    flow.map(slug="double", array="items")(handler)
    flow.map(slug="again", array="double")(handler)
    return flow


def conditions() -> Flow:
    flow = Flow("conditions")
    flow.step(slug="check", if_={"tier": "gold"}, if_not={"blocked": True}, when_unmet="fail")(
        handler
    )
    flow.step(
        slug="notify",
        depends_on=["check"],
        if_={"check": {"tags": ["a", "b"], "n": 1.5, "none": None}},
        when_unmet="skip-cascade",
        when_exhausted="skip",
    )(handler)
    flow.step(slug="quoting", if_not={"q": "it's'); drop table pgflow.flows; --\\ \"ü\""})(handler)
    flow.step(slug="tolerant", depends_on=["notify"], when_exhausted="skip-cascade")(handler)
    return flow


def options() -> Flow:
    flow = Flow("options", max_attempts=7, base_delay=2, timeout=45)
    flow.step(slug="defaults")(handler)
    flow.step(slug="own", max_attempts=1, base_delay=9, timeout=3, start_delay=0)(handler)
    flow.map(slug="delayed", start_delay=120, timeout=600)(handler)
    return flow


def job() -> Flow:
    @Job("job_flow", timeout=12)
    def job_flow(input):
        return input

    return job_flow


FLOWS = [chain, diamond, root_map, dependent_map, conditions, options, job]


def ensure(conn: psycopg.Connection, flow: Flow, shape: dict | None = None) -> dict:
    row = conn.execute(
        "select pgflow.ensure_flow_compiled(%s, %s)",
        (flow.slug, Jsonb(flow.shape() if shape is None else shape)),
    ).fetchone()
    return row[0]


def db_shape(conn: psycopg.Connection, slug: str) -> dict:
    return conn.execute("select pgflow._get_flow_shape(%s)", (slug,)).fetchone()[0]


def compare(conn: psycopg.Connection, local: dict, db: dict) -> list[str]:
    return conn.execute(
        "select pgflow._compare_flow_shapes(%s, %s)", (Jsonb(local), Jsonb(db))
    ).fetchone()[0]


def definition(conn: psycopg.Connection, slug: str) -> dict:
    """Everything stored about a flow's definition, with the options it was given."""
    flow_row = conn.execute(
        "select opt_max_attempts, opt_base_delay, opt_timeout from pgflow.flows "
        "where flow_slug = %s",
        (slug,),
    ).fetchone()
    steps = conn.execute(
        "select step_slug, step_type, step_index, deps_count, opt_max_attempts, opt_base_delay, "
        "opt_timeout, opt_start_delay, required_input_pattern, forbidden_input_pattern, "
        "when_unmet, when_exhausted from pgflow.steps where flow_slug = %s order by step_index",
        (slug,),
    ).fetchall()
    deps = conn.execute(
        "select step_slug, dep_slug from pgflow.deps where flow_slug = %s order by 1, 2", (slug,)
    ).fetchall()
    queue = conn.execute(
        "select count(*) from pgmq.meta where queue_name = %s", (slug,)
    ).fetchone()[0]
    return {"flow": flow_row, "steps": steps, "deps": deps, "queues": queue}


def without_options(shape: dict) -> dict:
    """The shape as _get_flow_shape returns it: no flow or step options."""
    steps = [{k: v for k, v in step.items() if k != "options"} for step in shape["steps"]]
    return {"steps": steps}


@pytest.mark.parametrize("make_flow", FLOWS)
def test_shape_compiles_then_verifies(pgflow_conn, make_flow):
    flow = make_flow()

    assert ensure(pgflow_conn, flow) == {"status": "compiled", "differences": []}
    assert ensure(pgflow_conn, flow) == {"status": "verified", "differences": []}
    assert ensure(pgflow_conn, make_flow()) == {"status": "verified", "differences": []}


@pytest.mark.parametrize("make_flow", FLOWS)
def test_stored_shape_equals_the_dsl_shape(pgflow_conn, make_flow):
    flow = make_flow()
    ensure(pgflow_conn, flow)

    stored = db_shape(pgflow_conn, flow.slug)

    assert compare(pgflow_conn, flow.shape(), stored) == []
    assert stored == without_options(flow.shape())


@pytest.mark.parametrize("make_flow", FLOWS)
def test_stored_options_are_the_dsl_options_or_the_sql_defaults(pgflow_conn, make_flow):
    flow = make_flow()
    ensure(pgflow_conn, flow)

    stored = definition(pgflow_conn, flow.slug)

    assert stored["flow"] == (
        flow.max_attempts if flow.max_attempts is not None else 3,
        flow.base_delay if flow.base_delay is not None else 5,
        flow.timeout if flow.timeout is not None else 60,
    )
    assert [row[4:8] for row in stored["steps"]] == [
        (step.max_attempts, step.base_delay, step.timeout, step.start_delay) for step in flow.steps
    ]
    assert [row[8:10] for row in stored["steps"]] == [
        (step.if_, step.if_not) for step in flow.steps
    ]


@pytest.mark.parametrize("make_flow", FLOWS)
def test_to_sql_builds_the_same_definition_as_ensure_flow_compiled(pgflow_conn, make_flow):
    flow = make_flow()
    ensure(pgflow_conn, flow)
    compiled = definition(pgflow_conn, flow.slug)
    compiled_shape = db_shape(pgflow_conn, flow.slug)
    pgflow_conn.execute("select pgflow.delete_flow_and_data(%s)", (flow.slug,))
    assert db_shape(pgflow_conn, flow.slug) == {"steps": []}

    pgflow_conn.execute(flow.to_sql())

    assert definition(pgflow_conn, flow.slug) == compiled
    assert db_shape(pgflow_conn, flow.slug) == compiled_shape
    assert ensure(pgflow_conn, flow) == {"status": "verified", "differences": []}


def test_to_sql_keeps_awkward_pattern_text_intact(pgflow_conn):
    flow = conditions()

    pgflow_conn.execute(flow.to_sql())

    stored = pgflow_conn.execute(
        "select forbidden_input_pattern from pgflow.steps "
        "where flow_slug = 'conditions' and step_slug = 'quoting'"
    ).fetchone()[0]
    assert stored == {"q": "it's'); drop table pgflow.flows; --\\ \"ü\""}
    assert pgflow_conn.execute("select count(*) from pgflow.flows").fetchone()[0] == 1


def test_to_sql_patterns_do_not_depend_on_standard_conforming_strings(pgflow_conn):
    flow = conditions()
    create_flow, *add_steps = flow.to_sql().splitlines()
    # pgmq's own functions need the default setting, so the queue is created first.
    pgflow_conn.execute(create_flow)
    pgflow_conn.execute("set standard_conforming_strings = off")
    pgflow_conn.execute("set escape_string_warning = off")

    for statement in add_steps:
        pgflow_conn.execute(statement)

    assert db_shape(pgflow_conn, "conditions") == without_options(flow.shape())


def _v1() -> Flow:
    flow = Flow("pipeline", timeout=30)
    flow.step(slug="fetch")(handler)
    flow.array(slug="items", depends_on=["fetch"])(handler)
    flow.map(slug="parse", array="items")(handler)
    flow.step(slug="save", depends_on=["parse"])(handler)
    return flow


def test_changed_flow_is_a_mismatch_listing_the_differences(pgflow_conn):
    ensure(pgflow_conn, _v1())
    before = definition(pgflow_conn, "pipeline")
    v2 = Flow("pipeline", timeout=30)
    v2.step(slug="fetch")(handler)
    v2.array(slug="items", depends_on=["fetch"], if_={"fetch": {"ok": True}})(handler)
    v2.map(slug="parse", array="items", when_exhausted="skip")(handler)
    v2.step(slug="save", depends_on=["fetch", "parse"])(handler)

    result = ensure(pgflow_conn, v2)

    assert result == {
        "status": "mismatch",
        "differences": [
            # jsonb prints object keys shorter-first: "value" before "defined".
            """Step at index 1: requiredInputPattern differs """
            """'{"value": {"fetch": {"ok": true}}, "defined": true}' vs '{"defined": false}'""",
            "Step at index 2: whenExhausted differs 'skip' vs 'fail'",
            "Step at index 3: dependencies differ [fetch, parse] vs [parse]",
        ],
    }
    assert definition(pgflow_conn, "pipeline") == before


def test_added_step_and_changed_type_are_mismatches(pgflow_conn):
    ensure(pgflow_conn, _v1())
    v3 = Flow("pipeline", timeout=30)
    v3.step(slug="fetch")(handler)
    v3.array(slug="items", depends_on=["fetch"])(handler)
    v3.step(slug="parse", depends_on=["items"])(handler)
    v3.step(slug="save", depends_on=["parse"])(handler)
    v3.step(slug="notify", depends_on=["save"])(handler)

    result = ensure(pgflow_conn, v3)

    assert result == {
        "status": "mismatch",
        "differences": [
            "Step count differs: 5 vs 4",
            "Step at index 2: type differs 'single' vs 'map'",
            "Step at index 4: missing in second shape (first has 'notify')",
        ],
    }


def test_option_changes_alone_still_verify(pgflow_conn):
    ensure(pgflow_conn, _v1())
    retuned = Flow("pipeline", timeout=90, max_attempts=9)
    retuned.step(slug="fetch", timeout=5)(handler)
    retuned.array(slug="items", depends_on=["fetch"])(handler)
    retuned.map(slug="parse", array="items", start_delay=10)(handler)
    retuned.step(slug="save", depends_on=["parse"])(handler)

    assert ensure(pgflow_conn, retuned) == {"status": "verified", "differences": []}
    # Options are not compared, so the stored ones stay those of the first compilation.
    assert definition(pgflow_conn, "pipeline")["flow"] == (3, 5, 30)


def test_allow_data_loss_recompiles_to_the_new_shape(pgflow_conn):
    ensure(pgflow_conn, _v1())
    v2 = Flow("pipeline")
    v2.step(slug="fetch")(handler)
    v2.step(slug="save", depends_on=["fetch"])(handler)

    result = pgflow_conn.execute(
        "select pgflow.ensure_flow_compiled(%s, %s, allow_data_loss => true)",
        (v2.slug, Jsonb(v2.shape())),
    ).fetchone()[0]

    assert result["status"] == "recompiled"
    assert db_shape(pgflow_conn, "pipeline") == without_options(v2.shape())
