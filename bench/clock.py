"""CLOCK: what the engine's time source (``pgflow._now()``) costs a flow that never uses it.

Every function that stores or compares a time reads ``pgflow._now()`` (``now()`` plus the
test clock's offset, an empty table outside tests) once per call. Measured in one fresh
database, one connection:

- ``per_call_us``: one ``pgflow._now()`` call minus one ``now()`` call, each timed over
  ``calls`` calls inside one PL/pgSQL loop (microseconds);
- ``per_start`` / ``per_task``: the reads of the engine's time in one ``start_flow`` of a
  one-step flow, and in claiming and completing its task (``read_and_start_tasks`` +
  ``complete_tasks``), counted over ``runs`` more runs with the test clock on (then each read
  calls ``_test_clock_now()``, which ``track_functions = 'all'`` counts);
- ``start_us`` / ``task_us``: the time of those calls with the test clock off (client round
  trips, one transaction each), over ``runs`` runs;
- ``share``: (per_start + per_task) x per_call_us / (start_us + task_us), the fraction of a
  run's engine time spent in the time source. Target < 1%: below what any repeat of a
  throughput workload can tell apart.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

import psycopg

from bench.stats import Measurement
from bench.workloads import START_QUERY

if TYPE_CHECKING:
    from bench.run import Bench

TIMED_LOOP = """
do $$
declare
  v timestamptz;
  t0 timestamptz;
begin
  t0 := clock_timestamp();
  for i in 1..{calls} loop v := {expr}; end loop;
  perform set_config('bench.clock_us',
                     (extract(epoch from clock_timestamp() - t0) * 1e6)::text, false);
end
$$
"""
CALLS_OF_NOW = (
    "select coalesce(sum(calls), 0) from pg_stat_user_functions"
    " where schemaname = 'pgflow' and funcname = '_test_clock_now'"
)
CLAIM = (
    "select run_id from pgflow.read_and_start_tasks('bench_w1', %(worker)s::uuid, 1, 30,"
    " array['only'])"
)
COMPLETE = (
    "select outcome from pgflow.complete_tasks(array[%(run)s::uuid], array['only'],"
    " array[0], array['1'::jsonb], array[1])"
)


def _loop_us(conn: psycopg.Connection[Any], expr: str, calls: int) -> float:
    conn.execute(TIMED_LOOP.format(calls=calls, expr=expr))
    row = conn.execute("select current_setting('bench.clock_us')::float8").fetchone()
    assert row is not None
    return float(row[0]) / calls


def _now_calls(conn: psycopg.Connection[Any]) -> int:
    conn.execute("select pg_stat_clear_snapshot()")
    row = conn.execute(CALLS_OF_NOW).fetchone()
    return int(row[0]) if row else 0


def _one_step_runs(conn: psycopg.Connection[Any], worker: str, runs: int) -> tuple[float, float]:
    """Start ``runs`` runs, then claim and complete their tasks; seconds of each part."""
    start_s = task_s = 0.0
    for _ in range(runs):
        t0 = time.perf_counter()
        conn.execute(START_QUERY).fetchone()
        start_s += time.perf_counter() - t0
    for _ in range(runs):
        t0 = time.perf_counter()
        claimed = conn.execute(CLAIM, {"worker": worker}).fetchone()
        assert claimed is not None and claimed[0] is not None, "no task to claim"
        conn.execute(COMPLETE, {"run": claimed[0]}).fetchone()
        task_s += time.perf_counter() - t0
    return start_s, task_s


def measure(dsn: str, calls: int, runs: int) -> dict[str, float]:
    """One repeat of CLOCK on database ``dsn`` (bench_w1 compiled, its queue empty).

    Timed with the test clock off (production). Counted with it on: ``_now()`` is inlined
    into its callers, so only its test-clock branch, ``_test_clock_now()``, is a function
    call that ``track_functions`` counts, once per read of the engine's time.
    """
    with psycopg.connect(dsn, autocommit=True) as conn:
        _loop_us(conn, "pgflow._now()", 1000)  # warm-up: plans cached
        per_call = _loop_us(conn, "pgflow._now()", calls) - _loop_us(conn, "now()", calls)
        worker = str(uuid.uuid4())
        conn.execute("select pgflow.register_worker(%s::uuid, 'bench_w1', 'bench')", (worker,))
        _one_step_runs(conn, worker, 20)  # warm-up: plans cached
        start_s, task_s = _one_step_runs(conn, worker, runs)
        conn.execute("set pgflow.test_clock = on")
        conn.execute("set track_functions = 'all'")
        conn.execute("set stats_fetch_consistency = 'none'")
        conn.execute("select pg_stat_force_next_flush()")
        base = _now_calls(conn)
        for _ in range(runs):
            conn.execute(START_QUERY).fetchone()
        conn.execute("select pg_stat_force_next_flush()")
        after_starts = _now_calls(conn)
        for _ in range(runs):
            claimed = conn.execute(CLAIM, {"worker": worker}).fetchone()
            assert claimed is not None and claimed[0] is not None, "no task to claim"
            conn.execute(COMPLETE, {"run": claimed[0]}).fetchone()
        conn.execute("select pg_stat_force_next_flush()")
        after_tasks = _now_calls(conn)
    per_start = (after_starts - base) / runs
    per_task = (after_tasks - after_starts) / runs
    assert per_start > 0 and per_task > 0, "no read of the engine's time counted"
    start_us, task_us = start_s / runs * 1e6, task_s / runs * 1e6
    share = (per_start + per_task) * per_call / (start_us + task_us)
    return {
        "per_call_us": per_call,
        "per_start": per_start,
        "per_task": per_task,
        "start_us": start_us,
        "task_us": task_us,
        "share": share,
    }


def record(bench: Bench) -> None:
    """Run CLOCK ``bench.repeat`` times; record the share and its parts."""
    calls, runs = bench.sizes.clock_calls, bench.sizes.clock_runs
    outcomes = [measure(bench.server.fresh_db(), calls, runs) for _ in range(bench.repeat)]
    details = {"calls": calls, "runs": runs, "repeats": outcomes}
    share = bench.add(
        Measurement(
            "CLOCK.share",
            "CLOCK time source, share of a one-step run's engine time",
            "%",
            [o["share"] * 100 for o in outcomes],
            higher_is_better=False,
            details=details,
        )
    )
    per_call = bench.add(
        Measurement(
            "CLOCK.per_call",
            "CLOCK pgflow._now() minus now(), per call",
            "µs",
            [o["per_call_us"] for o in outcomes],
            higher_is_better=False,
        )
    )
    print(
        f"    {share.label}: {[f'{v:.4f} %' for v in share.values]}; "
        f"{per_call.label}: {[round(v, 2) for v in per_call.values]} µs; "
        f"calls per start {outcomes[0]['per_start']}, per task {outcomes[0]['per_task']}",
        flush=True,
    )
