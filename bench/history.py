"""S1: the per-call cost of ``start_flow`` and ``complete_task``, empty vs 1,000,000 runs.

The calls are timed one by one from a single client (no worker: the benchmark reads the
messages and claims the tasks itself with ``pgmq.read`` + ``pgflow.start_tasks``, then
times each ``complete_task``), on the one-step flow ``bench_w1``, first in empty tables,
then with 1,000,000 finished runs in them. The per-call median of each repeat is kept.

The history is written set-based, straight into the tables (a benchmark setup, not the
engine): per finished run one ``runs`` row, one ``step_states`` row, one ``step_tasks`` row
and one archived pgmq message, with the statuses, counters and timestamps the engine leaves
(2% failed after 3 attempts, the rest completed, spread over the last 30 days; random-looking
uuids), and the queue's msg_id sequence moved past the archived ids. As superuser the
foreign-key triggers are skipped during the load (``session_replication_role = replica``;
the rows satisfy them anyway). The tables are then vacuumed and analyzed, and a checkpoint
taken, as a long-running database would be.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import psycopg

from bench.cluster import BenchServer
from bench.stats import percentile

FLOW = "bench_w1"
#: Untimed calls before each measurement.
WARM_UP_CALLS = 30
STEP = "only"

HISTORY_RUNS = """
insert into pgflow.runs (run_id, flow_slug, status, input, output, remaining_steps,
                         started_at, completed_at, failed_at)
select md5('bench-history-' || g)::uuid, 'bench_w1',
       case when g %% 50 = 0 then 'failed' else 'completed' end,
       '{}'::jsonb,
       case when g %% 50 = 0 then null else '{"only": null}'::jsonb end,
       case when g %% 50 = 0 then 1 else 0 end,
       t0, case when g %% 50 = 0 then null else t0 + d end,
       case when g %% 50 = 0 then t0 + d end
from generate_series(1, %(count)s) as g,
     lateral (select now() - interval '30 days' + g * (interval '30 days' / %(count)s) as t0,
                     interval '1 millisecond' * (20 + g %% 400) as d) as x
"""
HISTORY_STEP_STATES = """
insert into pgflow.step_states (flow_slug, run_id, step_slug, status, remaining_tasks,
  remaining_deps, created_at, started_at, completed_at, failed_at, error_message,
  initial_tasks, output)
select r.flow_slug, r.run_id, 'only', r.status, case when r.status = 'failed' then 1 else 0 end,
       0, r.started_at, r.started_at, r.completed_at, r.failed_at,
       case when r.status = 'failed' then 'RuntimeError: boom' end, 1,
       case when r.status = 'completed' then 'null'::jsonb end
from pgflow.runs as r where r.flow_slug = 'bench_w1' and r.status <> 'started'
"""
HISTORY_STEP_TASKS = """
insert into pgflow.step_tasks (flow_slug, run_id, step_slug, message_id, task_index, status,
  attempts_count, error_message, output, queued_at, completed_at, failed_at, started_at)
select r.flow_slug, r.run_id, 'only', g, 0, r.status,
       case when r.status = 'failed' then 3 else 1 end,
       case when r.status = 'failed' then 'RuntimeError: boom' end,
       case when r.status = 'completed' then 'null'::jsonb end,
       r.started_at, r.completed_at, r.failed_at, r.started_at + interval '2 milliseconds'
from generate_series(1, %(count)s) as g
join pgflow.runs as r on r.run_id = md5('bench-history-' || g)::uuid
"""
HISTORY_ARCHIVE = """
insert into pgmq.a_bench_w1 (msg_id, read_ct, enqueued_at, last_read_at, archived_at, vt,
                             message)
select t.message_id, t.attempts_count, t.queued_at, t.started_at,
       coalesce(t.completed_at, t.failed_at), t.started_at + interval '62 seconds',
       jsonb_build_object('flow_slug', t.flow_slug, 'run_id', t.run_id,
                          'step_slug', t.step_slug, 'task_index', t.task_index)
from pgflow.step_tasks as t where t.flow_slug = 'bench_w1' and t.status <> 'queued'
  and t.status <> 'started'
"""
MOVE_SEQUENCE = "select setval('pgmq.q_bench_w1_msg_id_seq', %(count)s + 1000)"

START = "select run_id from pgflow.start_flow('bench_w1', '{}'::jsonb)"
READ = "select msg_id from pgmq.read('bench_w1', 120, %s)"
CLAIM = """
select run_id, task_index from pgflow.start_tasks('bench_w1', %s::bigint[], %s::uuid)
"""
COMPLETE = """
select status from pgflow.complete_task(run_id => %s::uuid, step_slug => 'only',
  task_index => %s::int, output => 'null'::jsonb)
"""


def fill_history(dsn: str, count: int, superuser: bool) -> dict[str, Any]:
    """Write ``count`` finished runs of ``bench_w1``; return the seconds each part took."""
    timings: dict[str, Any] = {"runs": count}
    with psycopg.connect(dsn, autocommit=True) as conn:
        if superuser:
            conn.execute("set session_replication_role = replica")
        for name, statement in (
            ("runs_s", HISTORY_RUNS),
            ("step_states_s", HISTORY_STEP_STATES),
            ("step_tasks_s", HISTORY_STEP_TASKS),
            ("archive_s", HISTORY_ARCHIVE),
        ):
            started = time.perf_counter()
            params = {"count": count} if "%(count)s" in statement else None
            conn.execute(statement, params)  # type: ignore[arg-type]
            timings[name] = round(time.perf_counter() - started, 2)
        conn.execute(MOVE_SEQUENCE, {"count": count})  # type: ignore[arg-type]
        conn.execute("reset session_replication_role")
        started = time.perf_counter()
        conn.execute(
            "vacuum analyze pgflow.runs, pgflow.step_states, pgflow.step_tasks, "
            "pgmq.a_bench_w1, pgmq.q_bench_w1"
        )
        if superuser:
            conn.execute("checkpoint")
        timings["vacuum_s"] = round(time.perf_counter() - started, 2)
    return timings


def measure_calls(dsn: str, calls: int) -> dict[str, float]:
    """Time ``calls`` start_flow calls, claim the tasks, time ``calls`` complete_task calls.

    A warm-up round of the same calls (untimed) comes first, so both the empty and the
    filled database are measured with warm caches and prepared statements.

    Returns:
        Per-call medians and p95 in ms: ``start_flow``, ``complete_task`` (+ ``_p95``).
    """
    worker_id = uuid.uuid4()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select pgflow.register_worker(%s, 'bench_w1', 'bench-s1')", (worker_id,))
        _cycle(conn, worker_id, WARM_UP_CALLS)
        start_ms, complete_ms = _cycle(conn, worker_id, calls)
    return {
        "start_flow": percentile(start_ms, 50),
        "start_flow_p95": percentile(start_ms, 95),
        "complete_task": percentile(complete_ms, 50),
        "complete_task_p95": percentile(complete_ms, 95),
    }


def _cycle(
    conn: psycopg.Connection[Any], worker_id: uuid.UUID, calls: int
) -> tuple[list[float], list[float]]:
    """Start ``calls`` runs, claim their tasks, complete them; return both call timings."""
    start_ms = []
    for _ in range(calls):
        began = time.perf_counter()
        conn.execute(START).fetchone()
        start_ms.append((time.perf_counter() - began) * 1000)
    claimed: list[tuple[Any, int]] = []
    while len(claimed) < calls:
        ids = [r[0] for r in conn.execute(READ, (min(100, calls - len(claimed)),))]
        if not ids:
            raise RuntimeError(f"S1: only {len(claimed)} of {calls} tasks to claim")
        with conn.transaction():
            claimed.extend(conn.execute(CLAIM, (ids, worker_id)).fetchall())
    complete_ms = []
    for run_id, task_index in claimed:
        began = time.perf_counter()
        status = conn.execute(COMPLETE, (run_id, task_index)).fetchone()
        complete_ms.append((time.perf_counter() - began) * 1000)
        if status is None or status[0] != "completed":
            raise RuntimeError(f"S1: complete_task returned {status}")
    return start_ms, complete_ms


def run(
    server: BenchServer,
    history_runs: int,
    calls: int,
    repeats: int,
    with_history: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Measure empty, fill the history, measure again.

    Args:
        server: the bench cluster.
        history_runs: finished runs to write.
        calls: timed calls per measurement.
        repeats: measurements per state (empty, with history).
        with_history: called with the filled database's DSN once the history is measured
            (the dashboard pages are measured there); its result is returned too.

    Returns:
        ``{"empty": [per-repeat dicts], "history": [...], "fill": timings}``, and
        ``"with_history"``: what ``with_history`` returned.
    """
    empty = []
    for _ in range(repeats):
        dsn = server.fresh_db()
        empty.append(measure_calls(dsn, calls))
    dsn = server.fresh_db()
    fill = fill_history(dsn, history_runs, server.superuser)
    full = [measure_calls(dsn, calls) for _ in range(repeats)]
    outcome = {"empty": empty, "history": full, "fill": fill}
    if with_history is not None:
        outcome["with_history"] = with_history(dsn)
    return outcome
