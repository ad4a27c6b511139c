"""A database that upstream pgflow installed (its migrations, 0.14.x): found and adopted.

Upstream pgflow keeps no version in the database. A schema ``pgflow`` that has upstream's
table ``flows`` but not our ``installed_versions`` was installed by upstream.
:func:`find_upstream` says so, and which of upstream 0.14's columns it lacks (an older
upstream: its migrations to 0.14.x come first). :func:`adopt` turns it into this
package's schema in place with the packaged script ``sql/pgflow-adopt-upstream-0.14.sql``
(built from ``extension/adopt/`` and the sources): it adds our tables, indexes, views and
roles, replaces upstream's functions with ours and records this version; flows, steps,
runs, step states, tasks, workers and queues are kept as they are, and runs in flight go
on. ``pgflow install`` and ``pgflow migrate`` adopt; ``pgflow check-schema`` and the
worker point to them.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import psycopg

from pgflow._version import __version__
from pgflow.errors import InstallError
from pgflow.schema.catalog import load_manifest

#: The tables upstream pgflow 0.14 defines (same names, columns and order as ours).
UPSTREAM_TABLES = (
    "flows",
    "steps",
    "deps",
    "runs",
    "step_states",
    "step_tasks",
    "workers",
    "worker_functions",
)
#: The packaged script that adopts an upstream database (extension/build.py makes it).
#: Columns pgflow-py appends to upstream's tables (run control #12, keyed starts #14):
#: adoption adds them, so an upstream schema never has them.
OUR_COLUMNS = frozenset(
    {
        "runs.cancelled_at",
        "runs.paused_at",
        "runs.rerun_of",
        "step_states.cancelled_at",
        "step_tasks.cancelled_at",
        "step_tasks.attempt_offset",
        "runs.idempotency_key",
        "runs.concurrency_key",
        "runs.deadline",
        "runs.queued_at",
        "runs.queue_seq",
        "runs.expired_at",
        "flows.opt_concurrency_limit",
        "flows.opt_on_limit",
        "flows.opt_run_timeout",
        "steps.opt_max_in_flight",
    }
)
ADOPT_SCRIPT = "pgflow-adopt-upstream-0.14.sql"

#: One boolean: the database holds an upstream pgflow schema (flows, no installed_versions).
FOUND = """
select c_flows.oid is not null and c_versions.oid is null
from (select 1) as one
left join pg_catalog.pg_class as c_flows
  on c_flows.relname = 'flows'
 and c_flows.relnamespace = (select oid from pg_catalog.pg_namespace where nspname = 'pgflow')
left join pg_catalog.pg_class as c_versions
  on c_versions.relname = 'installed_versions'
 and c_versions.relnamespace = (select oid from pg_catalog.pg_namespace where nspname = 'pgflow')
"""

_COLUMNS = """
select c.relname::text || '.' || a.attname::text
from pg_catalog.pg_attribute as a
join pg_catalog.pg_class as c on c.oid = a.attrelid
join pg_catalog.pg_namespace as n on n.oid = c.relnamespace
where n.nspname = 'pgflow' and c.relname = any(%s) and a.attnum > 0 and not a.attisdropped
"""


@dataclass(frozen=True)
class UpstreamSchema:
    """An upstream pgflow schema found in a database.

    Attributes:
        missing_columns: ``table.column`` of upstream 0.14's tables that it lacks (empty:
            0.14.x, adoptable).
    """

    missing_columns: tuple[str, ...] = ()

    @property
    def adoptable(self) -> bool:
        """True when it has every column of upstream 0.14 (pgflow install can adopt it)."""
        return not self.missing_columns

    def describe(self) -> str:
        """One sentence for messages."""
        if self.adoptable:
            return "upstream pgflow 0.14.x (its tables, no pgflow-py version)"
        shown = ", ".join(self.missing_columns[:5])
        more = len(self.missing_columns) - 5
        return (
            "upstream pgflow older than 0.14 (it lacks "
            f"{shown}{f' and {more} more' if more > 0 else ''}): apply upstream's "
            "migrations up to 0.14.x first"
        )


def find_upstream(conn: psycopg.Connection[Any]) -> UpstreamSchema | None:
    """Return the upstream pgflow schema of the database, or None when there is none.

    Reads the catalog only. An upstream schema is one with table ``pgflow.flows`` and
    without ``pgflow.installed_versions``.
    """
    row = conn.execute(FOUND).fetchone()
    if row is None or not row[0]:
        return None
    present = {r[0] for r in conn.execute(_COLUMNS, (list(UPSTREAM_TABLES),))}
    return upstream_schema(present, load_manifest())


def upstream_schema(present: Iterable[str], manifest: Mapping[str, Any]) -> UpstreamSchema:
    """Return the upstream schema whose tables have the columns ``present``.

    ``present``: ``"table.column"`` names; the result lists which of upstream 0.14's columns
    (the manifest's, of :data:`UPSTREAM_TABLES`) are not among them.
    """
    have = set(present)
    tables = manifest["contract"]["tables"]
    wanted = [
        name
        for t in UPSTREAM_TABLES
        for c in tables[t]["columns"]
        if (name := f"{t}.{c['name']}") not in OUR_COLUMNS
    ]
    return UpstreamSchema(missing_columns=tuple(c for c in wanted if c not in have))


def adopt(conn: psycopg.Connection[Any], found: UpstreamSchema) -> None:
    """Run the packaged adoption script on ``conn`` (the caller owns the transaction).

    Raises:
        InstallError: ``found`` is not adoptable (an upstream older than 0.14), or the
            packaged script is missing.
    """
    if not found.adoptable:
        raise InstallError(f"cannot adopt the schema in place: it is {found.describe()}")
    path = importlib.resources.files("pgflow") / "sql" / ADOPT_SCRIPT
    try:
        script = path.read_text()
    except FileNotFoundError as exc:
        raise InstallError(
            f"packaged SQL {path} is missing: in a source checkout run `make build`"
        ) from exc
    conn.execute(script)


def adoption_hint() -> str:
    """What ``pgflow install`` does to an upstream schema, for messages."""
    return (
        f"run `pgflow install`: it adopts the upstream schema in place as pgflow-py "
        f"{__version__} (flows, runs, tasks, workers and queues are kept and runs in flight "
        "go on; it adds the tables installed_versions, schedules and map_task_inputs, "
        "replaces upstream's functions with pgflow-py's and creates the roles)"
    )
