"""Read the pgflow contract (compat/UPSTREAM.md) out of a database's catalog.

The *contract* is what clients and workers written against upstream pgflow rely on:
function signatures, table columns in order, constraint names, record types and views of
schema ``pgflow``. :func:`snapshot` returns it as plain JSON-able data, in the shape of the
``contract`` part of the checked-in manifest (``compat/manifest.json``, also shipped in
this package as ``pgflow/compat/manifest.json``):

- ``functions``: ``{name: [overload, ...]}``, overloads sorted by identity arguments; each
  has ``arguments`` (name, type, mode, default), ``returns``, ``kind``, ``volatility`` and
  ``security_definer``. Covered: every function whose name does not start with ``_``,
  plus the upstream-named internal ones (:data:`CONTRACT_INTERNAL_FUNCTIONS`).
- ``tables``: ``{name: {"columns": [...], "constraints": {name: type}}}``, columns in
  physical order (name, type, not_null, default); constraint types ``p`` (primary key),
  ``f`` (foreign key), ``u`` (unique), ``c`` (check), ``x`` (exclusion), ``t`` (trigger).
- ``types``: standalone composite types, ``{name: [field, ...]}`` (name, type) in order.
- ``views``: ``{name: [column, ...]}`` (name, type) in order.

Catalog reads are written once as *plans*: generators that yield ``(query, params)`` and
receive the rows, so the same code serves sync and async connections (:func:`run_plan`,
:func:`run_plan_async`). Plans run inside a transaction that is rolled back, with
``search_path = pg_catalog`` so that type names come out schema-qualified whatever the
caller's settings.
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Generator
from typing import Any

import psycopg
from psycopg.rows import tuple_row

#: Internal (``_``-prefixed) functions that upstream pgflow 0.14.1 also has, so they belong
#: to the contract. Our other ``_`` helpers are private (compat/UPSTREAM.md).
CONTRACT_INTERNAL_FUNCTIONS: tuple[str, ...] = (
    "_archive_task_message",
    "_cascade_force_skip_steps",
    "_compare_flow_shapes",
    "_create_flow_from_shape",
    "_get_flow_shape",
)

#: Schema holding the contract.
SCHEMA = "pgflow"

Rows = list[tuple[Any, ...]]
Query = tuple[str, tuple[Any, ...]]
#: A catalog read: yields queries, receives their rows, returns its result.
Plan = Generator[Query, Rows, Any]

_VOLATILITY = {"i": "immutable", "s": "stable", "v": "volatile"}
_KIND = {"f": "function", "p": "procedure", "a": "aggregate", "w": "window"}
_MODE = {"i": "in", "o": "out", "b": "inout", "v": "variadic", "t": "table"}

_FUNCTIONS = """
select p.proname,
       pg_get_function_identity_arguments(p.oid),
       pg_get_function_result(p.oid),
       p.prokind::text,
       p.provolatile::text,
       p.prosecdef,
       (select coalesce(jsonb_agg(jsonb_build_object(
                  'name', coalesce(a.name, ''),
                  'type', format_type(a.type, null),
                  'mode', coalesce(a.mode::text, 'i'),
                  'default', pg_get_function_arg_default(p.oid, a.n::int))
                order by a.n), '[]'::jsonb)
        from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]), p.proargmodes, p.proargnames)
             with ordinality as a (type, mode, name, n))
from pg_proc as p
join pg_namespace as n on n.oid = p.pronamespace
where n.nspname = %s
  and (left(p.proname, 1) <> '_' or p.proname = any(%s))
order by 1, 2
"""

_COLUMNS = """
select c.relkind::text, c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
       a.attnotnull, pg_get_expr(d.adbin, d.adrelid)
from pg_class as c
join pg_namespace as n on n.oid = c.relnamespace
join pg_attribute as a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
left join pg_attrdef as d on d.adrelid = c.oid and d.adnum = a.attnum
where n.nspname = %s
  and c.relkind in ('r', 'p', 'v', 'm', 'c')
order by c.relname, a.attnum
"""

# NOT NULL constraints (contype 'n', PostgreSQL 18+) are covered by the columns' not_null.
_CONSTRAINTS = """
select c.relname, con.conname, con.contype::text
from pg_constraint as con
join pg_class as c on c.oid = con.conrelid
join pg_namespace as n on n.oid = c.relnamespace
where n.nspname = %s and c.relkind in ('r', 'p') and con.contype <> 'n'
order by 1, 2
"""


def contract_plan(schema: str = SCHEMA) -> Plan:
    """Plan reading the contract of ``schema``; returns the ``contract`` dict (see module)."""
    functions: dict[str, list[dict[str, Any]]] = {}
    rows = yield _FUNCTIONS, (schema, list(CONTRACT_INTERNAL_FUNCTIONS))
    for name, _identity, returns, kind, volatility, secdef, args in rows:
        functions.setdefault(name, []).append(
            {
                "arguments": [
                    {
                        "name": a["name"],
                        "type": a["type"],
                        "mode": _MODE.get(a["mode"], a["mode"]),
                        "default": a["default"],
                    }
                    for a in args
                ],
                "returns": returns,
                "kind": _KIND.get(kind, kind),
                "volatility": _VOLATILITY.get(volatility, volatility),
                "security_definer": bool(secdef),
            }
        )

    tables: dict[str, dict[str, Any]] = {}
    types: dict[str, list[dict[str, Any]]] = {}
    views: dict[str, list[dict[str, Any]]] = {}
    rows = yield _COLUMNS, (schema,)
    for relkind, relname, column, type_, not_null, default in rows:
        if relkind in ("r", "p"):
            table = tables.setdefault(relname, {"columns": [], "constraints": {}})
            table["columns"].append(
                {"name": column, "type": type_, "not_null": bool(not_null), "default": default}
            )
        else:
            target = types if relkind == "c" else views
            target.setdefault(relname, []).append({"name": column, "type": type_})

    rows = yield _CONSTRAINTS, (schema,)
    for relname, conname, contype in rows:
        if relname in tables:
            tables[relname]["constraints"][conname] = contype

    return {"functions": functions, "tables": tables, "types": types, "views": views}


#: Name of the trigger pgmq.enable_notify_insert puts on a queue table.
NOTIFY_TRIGGER = "trigger_notify_queue_insert_listeners"
#: Name of the pg_cron job pgflow.setup_tick_cron schedules (tick: waits, timers, stalled tasks).
CRON_JOB = "pgflow_tick"
#: The pg_cron jobs that handle stalled tasks: tick's, or the older requeue-only job
#: (pgflow.setup_requeue_stalled_tasks_cron).
CRON_JOBS = (CRON_JOB, "pgflow_requeue_stalled_tasks")

# What exists and what this role may use. Catalog joins only: to_regclass('pgflow.x')
# raises instead of returning NULL when the role lacks USAGE on the schema. A table is
# readable with USAGE on its schema and SELECT on it.
_PROBE = """
with tables (schema_name, table_name) as (
  values ('pgflow', 'installed_versions'), ('pgflow', 'flows'), ('pgmq', 'meta'),
         ('pgmq', 'notify_insert_throttle'), ('cron', 'job')
)
select jsonb_object_agg(t.schema_name || '.' || t.table_name, jsonb_build_object(
         'exists', c.oid is not null,
         'readable', coalesce(has_schema_privilege(c.relnamespace, 'usage')
                              and has_table_privilege(c.oid, 'select'), false)))
       || jsonb_build_object(
  'database', current_database(),
  'pgflow_schema', exists (select 1 from pg_namespace where nspname = 'pgflow'),
  'pgflow_version_function', exists (
    select 1 from pg_proc as p join pg_namespace as n on n.oid = p.pronamespace
    where n.nspname = 'pgflow' and p.proname = 'version' and p.pronargs = 0
      and has_schema_privilege(n.oid, 'usage') and has_function_privilege(p.oid, 'execute')),
  'pgflow_extension', (select extversion from pg_extension where extname = 'pgflow'),
  'pgmq_schema', exists (select 1 from pg_namespace where nspname = 'pgmq'),
  'pgmq_extension', (select extversion from pg_extension where extname = 'pgmq'),
  'pg_cron_extension', (select extversion from pg_extension where extname = 'pg_cron'))
from tables as t
left join pg_namespace as n on n.nspname = t.schema_name
left join pg_class as c on c.relnamespace = n.oid and c.relname = t.table_name
"""

_INSTALL_METHOD = """
select v.install_method from pgflow.installed_versions as v
where v.version = pgflow.version() order by v.installed_at desc limit 1
"""

_PGMQ_MESSAGE_FIELDS = """
select a.attname, format_type(a.atttypid, a.atttypmod)
from pg_type as t
join pg_namespace as n on n.oid = t.typnamespace
join pg_attribute as a on a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped
where n.nspname = 'pgmq' and t.typname = 'message_record'
order by a.attnum
"""

_PGMQ_FUNCTIONS = """
select distinct p.proname from pg_proc as p join pg_namespace as n on n.oid = p.pronamespace
where n.nspname = 'pgmq' and p.proname = any(%s) order by 1
"""

_PGMQ_RELATIONS = """
select c.relname from pg_class as c join pg_namespace as n on n.oid = c.relnamespace
where n.nspname = 'pgmq' and c.relname = any(%s) order by 1
"""

# One row per flow: its pgmq queue table (q_<lower(slug)>) and NOTIFY trigger; the
# registration and throttle columns are filled in by _FLOW_EXTRAS when readable.
_FLOWS = """
select f.flow_slug, q.oid is not null, tg.tgdeferrable, tg.tgenabled::text
from pgflow.flows as f
left join pg_class as q
  on q.relnamespace = (select oid from pg_namespace where nspname = 'pgmq')
 and q.relkind in ('r', 'p') and q.relname::text = 'q_' || lower(f.flow_slug)
left join pg_trigger as tg on tg.tgrelid = q.oid and tg.tgname = %s
order by f.flow_slug
"""

_REGISTERED_QUEUES = "select m.queue_name::text from pgmq.meta as m"
_THROTTLED_QUEUES = "select t.queue_name::text from pgmq.notify_insert_throttle as t"

_CRON_JOBS = """
select to_jsonb(j) from cron.job as j where to_jsonb(j) ->> 'jobname' = any(%s)
"""


def environment_plan(
    pgmq_functions: list[str], pgmq_relations: list[str], schema: str = SCHEMA
) -> Plan:
    """Plan reading what check-schema needs besides the contract.

    Every query is guarded by a probe, so the plan never fails on a database that lacks
    pgflow, pgmq, pg_cron, or the privilege to read their tables.

    Args:
        pgmq_functions: pgmq function names whose presence to report.
        pgmq_relations: pgmq table names whose presence to report.
        schema: the pgflow schema.

    Returns:
        A JSON-able dict of facts: ``database``, ``pgflow`` (installed, version,
        install_method, extension_version), ``contract`` (see :func:`contract_plan`, or
        None), ``pgmq`` (installed, extension_version, message_record_fields, functions,
        relations, notify_available), ``flows`` (one dict per flow, or None when
        unreadable) and ``pg_cron`` (installed, version, jobs readable, jobs).
    """
    probe: dict[str, Any] = (yield _PROBE, ())[0][0]
    pgflow: dict[str, Any] = {
        "installed": probe["pgflow_schema"],
        "version": None,
        "install_method": None,
        "extension_version": probe["pgflow_extension"],
        # upstream pgflow installed it (its migrations): its tables, no version of ours
        "upstream": probe["pgflow.flows"]["exists"]
        and not probe["pgflow.installed_versions"]["exists"],
    }
    if probe["pgflow_version_function"] and probe["pgflow.installed_versions"]["readable"]:
        pgflow["version"] = (yield "select pgflow.version()", ())[0][0]
        method = yield _INSTALL_METHOD, ()
        pgflow["install_method"] = method[0][0] if method else None
    contract = (yield from contract_plan(schema)) if probe["pgflow_schema"] else None

    has_pgmq = probe["pgmq_schema"]
    pgmq: dict[str, Any] = {
        "installed": has_pgmq,
        "extension_version": probe["pgmq_extension"],
        "message_record_fields": None,
        "functions": [],
        "relations": [],
        "notify_available": probe["pgmq.notify_insert_throttle"]["exists"],
    }
    if has_pgmq:
        fields = yield _PGMQ_MESSAGE_FIELDS, ()
        if fields:
            pgmq["message_record_fields"] = [{"name": n, "type": t} for n, t in fields]
        pgmq["functions"] = [r[0] for r in (yield _PGMQ_FUNCTIONS, (pgmq_functions,))]
        pgmq["relations"] = [r[0] for r in (yield _PGMQ_RELATIONS, (pgmq_relations,))]

    flows: list[dict[str, Any]] | None = None
    if probe["pgflow.flows"]["readable"]:
        can_read_meta = probe["pgmq.meta"]["readable"]
        can_read_throttle = probe["pgmq.notify_insert_throttle"]["readable"]
        registered = set()
        if can_read_meta:
            registered = {r[0] for r in (yield _REGISTERED_QUEUES, ())}
        throttled = set()
        if can_read_throttle:
            throttled = {r[0] for r in (yield _THROTTLED_QUEUES, ())}
        flows = []
        for slug, has_queue, deferrable, enabled in (yield _FLOWS, (NOTIFY_TRIGGER,)):
            flows.append(
                {
                    "flow_slug": slug,
                    "queue_table": bool(has_queue),
                    "queue_registered": slug in registered if can_read_meta else None,
                    "notify_trigger": None
                    if deferrable is None
                    else {"deferrable": bool(deferrable), "enabled": enabled != "D"},
                    "notify_throttle": slug in throttled if can_read_throttle else None,
                }
            )

    cron_version = probe["pg_cron_extension"]
    cron: dict[str, Any] = {
        "installed": cron_version is not None,
        "version": cron_version,
        "jobs_readable": probe["cron.job"]["readable"],
        "jobs": [],
    }
    if cron_version is not None and probe["cron.job"]["readable"]:
        cron["jobs"] = [r[0] for r in (yield _CRON_JOBS, (list(CRON_JOBS),))]

    return {
        "database": probe["database"],
        "pgflow": pgflow,
        "contract": contract,
        "pgmq": pgmq,
        "flows": flows,
        "pg_cron": cron,
    }


def run_plan(conn: psycopg.Connection[Any], plan: Plan) -> Any:
    """Run a catalog plan on a sync connection and return its result.

    The queries run in a transaction (a savepoint if ``conn`` is already in one) that is
    rolled back, so nothing of the caller's session changes.
    """
    with conn.transaction(force_rollback=True):
        cur = conn.cursor(row_factory=tuple_row)
        cur.execute("select pg_catalog.set_config('search_path', 'pg_catalog', true)")
        try:
            query, params = next(plan)
            while True:
                cur.execute(query, params)
                query, params = plan.send(cur.fetchall())
        except StopIteration as stop:
            return stop.value


async def run_plan_async(conn: psycopg.AsyncConnection[Any], plan: Plan) -> Any:
    """Run a catalog plan on an async connection; see :func:`run_plan`."""
    async with conn.transaction(force_rollback=True):
        cur = conn.cursor(row_factory=tuple_row)
        await cur.execute("select pg_catalog.set_config('search_path', 'pg_catalog', true)")
        try:
            query, params = next(plan)
            while True:
                await cur.execute(query, params)
                query, params = plan.send(await cur.fetchall())
        except StopIteration as stop:
            return stop.value


def snapshot(conn_or_dsn: psycopg.Connection[Any] | str, schema: str = SCHEMA) -> dict[str, Any]:
    """Return the contract of ``schema`` as installed in a database (see module docstring).

    Args:
        conn_or_dsn: a psycopg connection, or a DSN to open one.
        schema: the schema to read (``pgflow``).
    """
    if isinstance(conn_or_dsn, str):
        with psycopg.connect(conn_or_dsn, autocommit=True) as conn:
            return dict(run_plan(conn, contract_plan(schema)))
    return dict(run_plan(conn_or_dsn, contract_plan(schema)))


def load_manifest() -> dict[str, Any]:
    """Return the manifest shipped in this package (``pgflow/compat/manifest.json``).

    Raises:
        FileNotFoundError: the package has no copy: a source checkout (editable install)
            before ``make build``, which copies ``compat/manifest.json`` there.
    """
    path = importlib.resources.files("pgflow") / "compat" / "manifest.json"
    try:
        return dict(json.loads(path.read_text()))
    except FileNotFoundError as exc:
        raise FileNotFoundError(
            f"{path} is missing: in a source checkout (editable install) run `make build`"
        ) from exc


def dump_manifest(manifest: dict[str, Any]) -> str:
    """Serialise a manifest deterministically (sorted keys, 2-space indent, final newline)."""
    return json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
