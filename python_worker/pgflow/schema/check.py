"""Check a live database against the pgflow contract manifest (``pgflow check-schema``).

:func:`check_schema` reads the database (:mod:`pgflow.schema.catalog`) and compares it with
the manifest shipped in this package (generated from our SQL by
``compat/generate_manifest.py``). It reports:

- errors (exit status 1): pgflow missing or at another version; pgmq missing, older than
  the manifest's minimum, or lacking a function or a ``message_record`` field pgflow uses;
  any difference in a contract function (arguments, defaults, return type, volatility,
  SECURITY DEFINER), table (columns in order with type, NOT NULL and default; constraint
  names and kinds), record type or view; a flow whose slug is too long for a pgmq queue
  name or whose queue table ``pgmq.q_<lower(slug)>`` is missing;
- warnings (exit status 0): objects the contract does not know, a flow queue without
  pgmq's NOTIFY trigger (or with one that is not deferrable or is disabled) or without its
  ``pgmq.notify_insert_throttle`` row, and no ``pgflow_requeue_stalled_tasks`` job when
  pg_cron is installed in the database.

The worker calls :func:`check_worker_compatibility` (or its async twin) before it reads a
task, and refuses to start with the message of the errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import psycopg

from pgflow._version import __version__
from pgflow.errors import SchemaVersionMismatch
from pgflow.schema.catalog import (
    SCHEMA,
    environment_plan,
    load_manifest,
    run_plan,
    run_plan_async,
)
from pgflow.schema.diff import compare_contract
from pgflow.schema.environment import check_cron, check_flows, check_pgmq, version_key
from pgflow.schema.report import Finding, Findings, SchemaReport, plural
from pgflow.schema.upstream import UpstreamSchema, adoption_hint, upstream_schema

__all__ = [
    "Finding",
    "SchemaReport",
    "check_schema",
    "check_schema_async",
    "check_worker_compatibility",
    "check_worker_compatibility_async",
    "evaluate",
    "worker_errors",
]

# ---------------------------------------------------------------- entry points


def check_schema(
    conn_or_dsn: psycopg.Connection[Any] | str, manifest: Mapping[str, Any] | None = None
) -> SchemaReport:
    """Check a database against the contract manifest and the environment pgflow needs.

    Reads only; runs in a transaction (a savepoint inside the caller's) that is rolled
    back.

    Args:
        conn_or_dsn: a psycopg connection, or a DSN to open one.
        manifest: the manifest to check against; default: the one shipped in the package.

    Returns:
        A :class:`SchemaReport`; ``report.ok`` is False when there are errors.

    Raises:
        psycopg.OperationalError: the DSN could not be connected to.
    """
    manifest = manifest if manifest is not None else load_manifest()
    plan = environment_plan(manifest["pgmq"]["functions"], manifest["pgmq"]["relations"])
    if isinstance(conn_or_dsn, str):
        with psycopg.connect(conn_or_dsn, autocommit=True) as conn:
            facts = run_plan(conn, plan)
    else:
        facts = run_plan(conn_or_dsn, plan)
    return evaluate(facts, manifest)


async def check_schema_async(
    conn: psycopg.AsyncConnection[Any], manifest: Mapping[str, Any] | None = None
) -> SchemaReport:
    """Async twin of :func:`check_schema` (takes a connection only)."""
    manifest = manifest if manifest is not None else load_manifest()
    plan = environment_plan(manifest["pgmq"]["functions"], manifest["pgmq"]["relations"])
    return evaluate(await run_plan_async(conn, plan), manifest)


def check_worker_compatibility(
    conn: psycopg.Connection[Any], flow_slugs: Iterable[str] | None = None
) -> None:
    """Refuse a database the worker cannot run against.

    Args:
        conn: a psycopg connection to the database.
        flow_slugs: the flows this worker serves; errors about other flows (such as an
            old flow whose queue is missing) are ignored. None ignores all flow errors.

    Raises:
        SchemaVersionMismatch: the check found errors; the message lists them.
    """
    _raise_incompatible(check_schema(conn), flow_slugs)


async def check_worker_compatibility_async(
    conn: psycopg.AsyncConnection[Any], flow_slugs: Iterable[str] | None = None
) -> None:
    """Async twin of :func:`check_worker_compatibility`."""
    _raise_incompatible(await check_schema_async(conn), flow_slugs)


def worker_errors(report: SchemaReport, flow_slugs: Iterable[str] | None = None) -> list[Finding]:
    """The errors of ``report`` that stop a worker serving ``flow_slugs``."""
    wanted = set(flow_slugs or ())
    return [
        e for e in report.errors if "flow_slug" not in e.details or e.details["flow_slug"] in wanted
    ]


def _raise_incompatible(report: SchemaReport, flow_slugs: Iterable[str] | None) -> None:
    errors = worker_errors(report, flow_slugs)
    if errors:
        lines = [
            f"the database is not compatible with pgflow {__version__} "
            f"({plural(len(errors), 'error')}; `pgflow check-schema` shows the full report):"
        ]
        lines.extend(f"  - {e.message}" + (f" ({e.hint})" if e.hint else "") for e in errors)
        raise SchemaVersionMismatch("\n".join(lines))


# ---------------------------------------------------------------- evaluation


def evaluate(facts: Mapping[str, Any], manifest: Mapping[str, Any]) -> SchemaReport:
    """Compare facts read from a database with the manifest (no database access).

    Args:
        facts: the result of :func:`pgflow.schema.catalog.environment_plan`.
        manifest: the contract manifest.
    """
    out = Findings()
    upstream = _upstream(facts, manifest)
    _check_pgflow(out, facts["pgflow"], manifest, upstream)
    check_pgmq(out, facts["pgmq"], manifest["pgmq"])
    if facts.get("contract") is not None:
        compare_contract(
            out, facts["contract"], manifest["contract"], _contract_hint(facts, manifest, upstream)
        )
    check_flows(out, facts.get("flows"), facts["pgmq"])
    check_cron(out, facts["pg_cron"], facts.get("database"))

    pgflow, pgmq = facts["pgflow"], facts["pgmq"]
    summary = {
        "database": facts.get("database"),
        "manifest_version": manifest["pgflow_version"],
        "upstream_version": manifest.get("upstream", {}).get("version"),
        "pgflow_version": pgflow["version"],
        "pgflow_install": pgflow["install_method"] or ("unknown" if pgflow["installed"] else None),
        "pgmq_version": pgmq["extension_version"],
        "pgmq_install": (
            None if not pgmq["installed"] else "extension" if pgmq["extension_version"] else "sql"
        ),
        "pgmq_min_version": manifest["pgmq"]["min_version"],
        "pg_cron_version": facts["pg_cron"]["version"],
        "flows": None if facts.get("flows") is None else len(facts["flows"]),
    }
    return SchemaReport(errors=out.errors, warnings=out.warnings, facts=summary)


def _contract_hint(
    facts: Mapping[str, Any], manifest: Mapping[str, Any], upstream: UpstreamSchema | None
) -> str:
    """How to fix a contract difference: adopt or migrate, else restore the object."""
    wanted, installed = manifest["pgflow_version"], facts["pgflow"]["version"]
    if upstream is not None:
        if not upstream.adoptable:
            return "upstream's migrations to 0.14.x come first, then `pgflow install`"
        return "added or replaced by `pgflow install`, which adopts the upstream schema"
    if installed and installed != wanted:
        if version_key(installed) < version_key(wanted):
            return f"expected after `pgflow migrate` from {installed} to {wanted}"
        return f"the installed schema ({installed}) is newer than this package ({wanted})"
    return (
        f"the pgflow schema was changed after install: restore the object from "
        f"pgflow/sql/pgflow--{wanted}.sql"
    )


def _upstream(facts: Mapping[str, Any], manifest: Mapping[str, Any]) -> UpstreamSchema | None:
    """The upstream pgflow schema the facts show (with the 0.14 columns it lacks), or None."""
    if facts["pgflow"]["version"] is not None or not facts["pgflow"].get("upstream"):
        return None
    tables = (facts.get("contract") or {}).get("tables") or {}
    present = [f"{t}.{c['name']}" for t, table in tables.items() for c in table["columns"]]
    return upstream_schema(present, manifest)


def _check_pgflow(
    out: Findings,
    pgflow: Mapping[str, Any],
    manifest: Mapping[str, Any],
    upstream: UpstreamSchema | None = None,
) -> None:
    wanted = manifest["pgflow_version"]
    if not pgflow["installed"]:
        out.error(
            "pgflow_not_installed",
            f"schema {SCHEMA} does not exist",
            hint="run `pgflow install`",
            expected=wanted,
        )
    elif upstream is not None:
        out.error(
            "pgflow_upstream",
            f"schema {SCHEMA} was installed by upstream pgflow: {upstream.describe()}"
            + (
                "; the differences below are what adopting it changes" if upstream.adoptable else ""
            ),
            hint=adoption_hint()
            if upstream.adoptable
            else "apply upstream's migrations up to 0.14.x, then run `pgflow install`",
            expected=wanted,
        )
    elif pgflow["version"] is None:
        out.error(
            "pgflow_version_unknown",
            f"schema {SCHEMA} exists but has no readable pgflow.version() / "
            "pgflow.installed_versions (not installed by pgflow-py, or no privilege)",
            hint="install with `pgflow install`",
            expected=wanted,
        )
    elif pgflow["version"] != wanted:
        out.error(
            "pgflow_version_mismatch",
            f"pgflow {pgflow['version']} is installed; this package needs {wanted}",
            hint="run `pgflow migrate`"
            if version_key(pgflow["version"]) < version_key(wanted)
            else "use the pgflow package of the installed version",
            expected=wanted,
            found=pgflow["version"],
        )
