"""Hostile text through every text argument of every pgflow function never runs as SQL.

The functions are read from the catalog, so a new function is covered without editing
this file. Each text (or text[]) argument gets each payload below while the other
arguments hold values that let the call get as far as possible (an existing flow, run,
task, message and worker). Every call runs in a transaction that is rolled back; inside
it the test checks that no payload created or dropped a table, and that a failing call
failed with a clean error (never a syntax error: that would mean the text reached a SQL
parser). Run as the owner (dynamic SQL of SECURITY DEFINER functions runs with these
rights) and as each role, over the functions the role may execute.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.types.json import Jsonb

ENGINE_TABLES = ("flows", "steps", "deps", "runs", "step_states", "step_tasks", "workers")

#: Payloads: quote breaking in each quoting style, statement separators, comments,
#: placeholders, names too long for pgmq, non-ASCII, whitespace, look-alike identifiers.
PAYLOADS = (
    "x'); create table public.pwned (); --",
    "x'); drop table pgflow.runs; --",
    'x"); create table public.pwned (); --',
    'x" ; drop table pgflow.runs; --',
    "x$$; create table public.pwned (); --",
    "x$q$; create table public.pwned (); --",
    "x; create table public.pwned ()",
    "x' || pg_catalog.set_config('pgflow_test.injected', 'yes', false) || '",
    "x) ; drop table pgflow.runs; --",
    "' or '1'='1",
    "$1",
    "-- x",
    "a" * 48,
    "b" * 300,
    "flöw_ñame_日本",
    "line\nbreak\tand tab",
    "pgmq.meta",
    "q_inj",
    "",
)

#: Values for non-payload arguments, by argument name, then by type.
SHAPE = {
    "steps": [
        {"slug": "a", "stepType": "single", "dependencies": []},
        {"slug": "b", "stepType": "single", "dependencies": ["a"]},
    ],
    "options": {"maxAttempts": 3, "baseDelay": 0},
}


@dataclass(frozen=True)
class Function:
    """One pgflow function: its name and (name, type) arguments."""

    name: str
    arguments: tuple[tuple[str, str], ...]

    @property
    def signature(self) -> str:
        return f"pgflow.{self.name}({','.join(t for _, t in self.arguments)})"


@dataclass
class Fixture:
    """Existing objects the non-payload arguments point to."""

    run_id: str
    msg_id: int
    worker_id: str


SUPPORTED_TYPES = {
    "text",
    "text[]",
    "uuid",
    "integer",
    "bigint",
    "bigint[]",
    "integer[]",
    "jsonb",
    "boolean",
    "interval",
    "numeric",
    "timestamp with time zone",
}


def functions(conn: psycopg.Connection[Any]) -> list[Function]:
    """Every pgflow function with at least one text argument and only simple types."""
    rows = conn.execute(
        """
        select p.proname,
               coalesce(array_agg(a.name order by a.n) filter (where a.n is not null), '{}'),
               coalesce(array_agg(format_type(a.type, null) order by a.n)
                        filter (where a.n is not null), '{}')
        from pg_proc as p
        left join lateral unnest(p.proargnames[1:p.pronargs], p.proargtypes::oid[])
          with ordinality as a (name, type, n) on true
        where p.pronamespace = 'pgflow'::regnamespace
        group by p.oid, p.proname
        order by 1
        """
    ).fetchall()
    found = []
    for name, arg_names, arg_types in rows:
        if not set(arg_types) <= SUPPORTED_TYPES:
            continue  # internal helpers taking row types; their callers are covered
        if not {"text", "text[]"} & set(arg_types):
            continue
        found.append(Function(name, tuple(zip(arg_names, arg_types, strict=True))))
    return found


def value_for(name: str, type_: str, fixture: Fixture) -> Any:
    """A value that lets the call proceed (an existing flow, run, task, message...)."""
    by_name: dict[str, Any] = {
        "flow_slug": "inj",
        "p_flow_slug": "inj",
        "queue_name": "inj",
        "step_slug": "a",
        "schedule_name": None,
        "schedule": "0 * * * *",
        "cron_interval": "0 * * * *",
        "function_name": "injection_test",
        "error_message": "boom",
        "run_id": fixture.run_id,
        "worker_id": str(uuid.uuid4()),  # fresh: register_worker refuses a reused id
        "msg_ids": [fixture.msg_id],
        "vt_offsets": [1],
        "task_index": 0,
        "vt": 30,
        "qty": 1,
        "shape": Jsonb(SHAPE),
        "p_shape": Jsonb(SHAPE),
        "deps_slugs": ["a"],
    }
    if name in by_name:
        return by_name[name]
    by_type: dict[str, Any] = {
        "text": "inj",
        "text[]": ["a"],
        "uuid": fixture.run_id,
        "integer": 0,
        "bigint": fixture.msg_id,
        "bigint[]": [fixture.msg_id],
        "integer[]": [1],
        "jsonb": Jsonb({}),
        "boolean": False,
        "interval": "1 day",
        "numeric": 1,
        "timestamp with time zone": "2026-01-01T00:00:00Z",
    }
    return by_type[type_]


def call(function: Function, position: int, payload: str, fixture: Fixture) -> sql.Composed:
    """``select * from pgflow.f($1::t1, ...)`` with the payload at ``position``."""
    values = []
    for i, (name, type_) in enumerate(function.arguments):
        if i == position:
            value: Any = [payload] if type_ == "text[]" else payload
        else:
            value = value_for(name, type_, fixture)
        values.append(sql.SQL("{}::{}").format(sql.Literal(value), sql.SQL(type_)))
    return sql.SQL("select * from pgflow.{}({})").format(
        sql.Identifier(function.name), sql.SQL(", ").join(values)
    )


@pytest.fixture
def fixture(pgflow_conn: psycopg.Connection[Any]) -> Fixture:
    """Flow inj (a -> b), a started run whose task a is started by a registered worker, and
    a second run whose task message is still in the queue."""
    worker_id = str(uuid.uuid4())
    conn = pgflow_conn
    conn.execute("select pgflow.ensure_flow_compiled('inj', %s)", (Jsonb(SHAPE),))
    conn.execute("select pgflow.register_worker(%s, 'inj', 'injection_test')", (worker_id,))
    run_id = conn.execute("select run_id from pgflow.start_flow('inj', '{}')").fetchone()[0]
    conn.execute(
        "select pgflow.start_tasks('inj', array(select msg_id from pgmq.read('inj', 30, 1)), %s)",
        (worker_id,),
    )
    conn.execute("select pgflow.start_flow('inj', '{}')")
    msg_id = conn.execute("select max(msg_id) from pgmq.q_inj").fetchone()[0]
    return Fixture(run_id=str(run_id), msg_id=msg_id, worker_id=worker_id)


def probe(conn: psycopg.Connection[Any]) -> tuple[bool, list[str]]:
    """(no marker table or setting, engine tables missing) as the test's superuser."""
    row = conn.execute(
        "select to_regclass('public.pwned') is null"
        " and coalesce(current_setting('pgflow_test.injected', true), '') = '',"
        " array(select t from unnest(%s::text[]) as t"
        "       where to_regclass('pgflow.' || t) is null)",
        (list(ENGINE_TABLES),),
    ).fetchone()
    assert row is not None
    return row[0], row[1]


def attack(conn: psycopg.Connection[Any], role: str | None, fixture: Fixture) -> set[str]:
    """Run every payload through every text argument; return the functions attacked."""
    problems: list[str] = []
    attacked: set[str] = set()
    for function in functions(conn):
        if (
            role is not None
            and not conn.execute(
                "select has_function_privilege(%s, %s, 'execute')", (role, function.signature)
            ).fetchone()[0]
        ):
            continue
        for position, (_, type_) in enumerate(function.arguments):
            if type_ not in ("text", "text[]"):
                continue
            attacked.add(function.name)
            for payload in PAYLOADS:
                statement = call(function, position, payload, fixture)
                with conn.transaction(force_rollback=True):
                    if role is not None:
                        conn.execute(sql.SQL("set local role {}").format(sql.Identifier(role)))
                    error: psycopg.Error | None = None
                    try:
                        with conn.transaction():
                            conn.execute(statement)
                    except psycopg.Error as exc:
                        error = exc
                    conn.execute("reset role")
                    clean, missing = probe(conn)
                where = f"{function.signature} argument {position + 1} = {payload!r}"
                if not clean or missing:
                    problems.append(f"{where}: INJECTED (pwned={not clean}, dropped={missing})")
                if error is not None:
                    state = error.sqlstate or ""
                    if state == "42601" or state.startswith("XX") or "syntax error" in str(error):
                        problems.append(f"{where}: unclean error {state}: {error}")
                    if role is not None and state == "42501":
                        problems.append(f"{where}: {role} lacks a privilege: {error}")
    assert problems == [], "\n".join(problems)
    return attacked


def test_no_text_argument_of_any_function_runs_as_sql_for_the_owner(pgflow_conn, fixture):
    attacked = attack(pgflow_conn, None, fixture)

    # the functions with dynamic SQL or queue names are among those attacked
    assert {
        "set_vt_batch",
        "_archive_messages",
        "start_tasks",
        "read_tasks",
        "enable_flow_notify",
        "delete_flow_and_data",
        "create_flow",
        "add_step",
        "ensure_flow_compiled",
        "start_flow",
        "complete_task",
        "fail_task",
        "register_worker",
        "schedule_flow",
        "unschedule_flow",
        "setup_requeue_stalled_tasks_cron",
    } <= attacked
    assert len(attacked) >= 30


@pytest.mark.parametrize("role", ["pgflow_worker", "pgflow_client"])
def test_no_text_argument_runs_as_sql_for_the_roles(pgflow_conn, fixture, role):
    attacked = attack(pgflow_conn, role, fixture)

    expected = (
        {"read_tasks", "start_tasks", "complete_task", "fail_task", "ensure_flow_compiled"}
        if role == "pgflow_worker"
        else {"start_flow", "start_flow_with_states"}
    )
    assert expected <= attacked


@pytest.mark.parametrize("payload", [p for p in PAYLOADS if p != "q_inj"])
def test_hostile_flow_slugs_are_refused_before_any_queue_exists(pgflow_conn, payload):
    queues = pgflow_conn.execute("select count(*) from pgmq.meta").fetchone()[0]

    for statement in (
        "select pgflow.create_flow(%s)",
        "select pgflow.ensure_flow_compiled(%s, %s)",
    ):
        with pytest.raises(psycopg.errors.CheckViolation):
            pgflow_conn.execute(statement, (payload, Jsonb(SHAPE))[: statement.count("%s")])

    assert pgflow_conn.execute("select count(*) from pgmq.meta").fetchone()[0] == queues
    assert pgflow_conn.execute("select count(*) from pgflow.flows").fetchone()[0] == 0
