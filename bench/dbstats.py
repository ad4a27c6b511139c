"""Database-side counters of a drain: commits per task, and (``--profile``) time per function.

``--profile`` turns on ``track_functions = 'all'`` for the bench database, so
``pg_stat_user_functions`` records calls and time of every pgflow / pgmq function the
workers run. The timing itself costs a little: profiled runs are for the diagnosis, not
for the throughput numbers (``bench.run --profile`` marks them).
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

COMMITS = "select xact_commit from pg_stat_database where datname = current_database()"
PROFILE = """
select schemaname || '.' || funcname, sum(calls)::bigint, sum(total_time), sum(self_time)
from pg_stat_user_functions group by 1 order by 4 desc limit %s
"""


def commits(conn: psycopg.Connection[Any]) -> int:
    """Transactions committed in the current database so far (this session's included)."""
    conn.execute("select pg_stat_force_next_flush()")
    conn.execute("select pg_stat_clear_snapshot()")
    return int(conn.execute(COMMITS).fetchone()[0])  # type: ignore[index]


def enable_profile(admin_dsn: str, dbname: str) -> None:
    """Make new sessions of ``dbname`` record per-function calls and times."""
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(
            sql.SQL("alter database {} set track_functions = 'all'").format(sql.Identifier(dbname))
        )


def function_profile(conn: psycopg.Connection[Any], tasks: int, top: int = 15) -> list[dict]:
    """The ``top`` functions by self time, with µs per call and per task."""
    conn.execute("select pg_stat_clear_snapshot()")
    rows = conn.execute(PROFILE, (top,)).fetchall()
    return [
        {
            "function": name,
            "calls": calls,
            "calls_per_task": round(calls / tasks, 2),
            "self_us_per_task": round(self_ms * 1000 / tasks, 1),
            "total_us_per_call": round(total_ms * 1000 / calls, 1),
        }
        for name, calls, total_ms, self_ms in rows
    ]
