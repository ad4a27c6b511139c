"""W1-W4 (workers draining runs), start_flow throughput, and P (a 100,000-item root map).

Drain workloads: the worker processes are spawned first, on an empty queue; once each has
polled it (as the ceiling's clients start together behind a barrier), the runs are started
(set-based) and the tables analyzed in one transaction, so the tasks appear at once for
every worker. The drain time is measured on the database clock, from the first task
claimed (``min(step_tasks.started_at)``) to the last run completed
(``max(runs.completed_at)``); the time from spawning the workers until every one of them
had polled (``ready_s``) and until the drain was seen over (``wall_s``, fill included) are
kept in the details. Throughput = completed tasks / drain time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from bench import dbstats
from bench.cluster import BENCH_DB, BenchServer
from bench.cpu import CpuWindow
from bench.procs import Workers, WorkerSettings, pgflow_worker_argv, worker_args

POLL_SECONDS = 0.1
DRAIN_TIMEOUT_SECONDS = 300.0
READY_TIMEOUT_SECONDS = 60.0

START_RUNS = """
select count(*) from (
  select pgflow.start_flow(%(flow)s, %(input)s::jsonb) from generate_series(1, %(count)s)
) as started
"""
#: START's call: a one-step flow, no key (KEYED's reference too).
START_QUERY = "select run_id from pgflow.start_flow('bench_w1', '{}'::jsonb)"
ANALYZE = "analyze pgflow.runs, pgflow.step_states, pgflow.step_tasks, pgmq.q_{slug}"
PROGRESS = """
select count(*) filter (where status = 'started'), count(*) filter (where status = 'failed'),
       (select count(*) from pgflow.step_tasks as t
         where t.flow_slug = %(flow)s and t.status = 'completed')
from pgflow.runs where flow_slug = %(flow)s
"""
#: Worker processes that have polled (each pool's connections share an application_name).
POLLING = """
select count(distinct application_name) from pg_stat_activity
where datname = current_database() and application_name like 'pgflow-worker:%'
  and query like '%read_and_start_tasks%'
"""
TIMINGS = """
select extract(epoch from min(t.started_at))::float8,
       (select extract(epoch from max(r.completed_at))::float8
          from pgflow.runs as r where r.flow_slug = %(flow)s),
       count(*) filter (where t.status = 'completed'),
       count(*),
       coalesce(sum(t.attempts_count), 0)
from pgflow.step_tasks as t where t.flow_slug = %(flow)s
"""
MAP_COMPLETIONS = """
select extract(epoch from completed_at)::float8 from pgflow.step_tasks
where flow_slug = %(flow)s and step_slug = %(step)s order by completed_at
"""


def drain(
    server: BenchServer,
    settings: WorkerSettings,
    flow_slug: str,
    fill: Callable[[psycopg.Connection[Any]], None],
    name: str,
    expected_tasks: int,
    profile: bool = False,
) -> dict[str, Any]:
    """Spawn the workers, start runs with ``fill`` once they poll, time their drain.

    Returns:
        ``rate`` (tasks/s over the drain time) and details: ``tasks``, ``runs``,
        ``drain_s``, ``wall_s`` (from spawning the workers), ``ready_s``, the CPU per
        task of workers and backends between 10% and 90% of the tasks (``cpu``),
        ``commits_per_task``, and with ``profile`` the top functions (``profile``).
    """
    dsn = server.fresh_db()
    if profile:
        dbstats.enable_profile(server.admin_dsn, BENCH_DB)
    with psycopg.connect(dsn, autocommit=True) as conn:
        argv = pgflow_worker_argv(dsn, [f"bench.flows:{_attr(flow_slug)}"], worker_args(settings))
        workers = Workers(argv, settings.processes, name)
        spawned = time.time()
        workers.start()
        polls = 0
        try:
            # As the ceiling's clients start behind a barrier, the workers start first and
            # the runs appear at once for all of them (one transaction, analyzed inside it):
            # the drain measures the workers together, not one worker's head start.
            ready = wait_until_polling(conn, workers, settings.processes)
            commits_before = dbstats.commits(conn)
            with conn.transaction():
                fill(conn)
                conn.execute(ANALYZE.format(slug=flow_slug))  # type: ignore[arg-type]
            runs = conn.execute(
                "select count(*) from pgflow.runs where flow_slug = %s", (flow_slug,)
            ).fetchone()[0]  # type: ignore[index]
            window = CpuWindow(conn, [p.pid for p in workers.procs])
            deadline = time.monotonic() + DRAIN_TIMEOUT_SECONDS
            opened = closed = False
            while True:
                polls += 1
                started, failed, done = conn.execute(  # type: ignore[misc]
                    PROGRESS, {"flow": flow_slug}
                ).fetchone()
                if not opened and done >= expected_tasks // 10:
                    window.open(done)
                    opened = True
                elif opened and not closed and done >= expected_tasks * 9 // 10:
                    window.close(done)
                    closed = True
                if failed:
                    raise RuntimeError(f"{failed} {flow_slug} runs failed; see {workers.logs}")
                if started == 0:
                    break
                workers.check_alive()
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{flow_slug}: {started} runs left after the timeout")
                time.sleep(POLL_SECONDS)
            seen = time.time()
        finally:
            workers.stop()  # their backends exit and flush their statistics
        first, last, completed, total, attempts = conn.execute(  # type: ignore[misc]
            TIMINGS, {"flow": flow_slug}
        ).fetchone()
        extra: dict[str, Any] = {}
        if flow_slug == "bench_w3":
            extra = map_pace(conn, flow_slug, "item", first)
        elif flow_slug == "bench_w4":  # the dependent map: each claim reads its element
            extra = map_pace(conn, flow_slug, "again", dependent_map_start(conn, flow_slug))
        # the harness's own: the fill, the run count, 2 CPU samples, the progress polls,
        # the timings and this count
        worker_commits = dbstats.commits(conn) - commits_before - polls - 5
        extra["commits_per_task"] = round(worker_commits / completed, 2)
        if profile:
            extra["profile"] = dbstats.function_profile(conn, completed)
    seconds = last - first
    return {
        "rate": completed / seconds,
        "tasks": completed,
        "runs": runs,
        "retries": attempts - total,
        "drain_s": round(seconds, 3),
        "wall_s": round(seen - spawned, 3),
        "ready_s": round(ready - spawned, 3),
        "cpu": window.result,
        **extra,
    }


def wait_until_polling(conn: psycopg.Connection[Any], workers: Workers, count: int) -> float:
    """Wait until ``count`` worker processes have each polled their queue; return when (epoch s).

    A worker has polled once one of its connections (``application_name``
    ``pgflow-worker:<id>``) last ran ``read_and_start_tasks``.
    """
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while True:
        polling = conn.execute(POLLING).fetchone()[0]  # type: ignore[index]
        if polling >= count:
            return time.time()
        workers.check_alive()
        if time.monotonic() > deadline:
            raise TimeoutError(f"{polling} of {count} workers polling after the timeout")
        time.sleep(0.02)


def map_pace(
    conn: psycopg.Connection[Any], flow_slug: str, step_slug: str, first: float
) -> dict[str, Any]:
    """Map-task completions per second by tenth of the map, and last/first quarter ratio."""
    times = [r[0] for r in conn.execute(MAP_COMPLETIONS, {"flow": flow_slug, "step": step_slug})]
    n = len(times)

    def rate(lo: int, hi: int) -> float:
        start = first if lo == 0 else times[lo - 1]
        return (hi - lo) / max(times[hi - 1] - start, 1e-6)

    tenths = [rate(n * k // 10, n * (k + 1) // 10) for k in range(10)]
    quarter = n // 4
    return {
        "rate_by_tenth": [round(r, 1) for r in tenths],
        "last_quarter_over_first": round(rate(n - quarter, n) / rate(0, quarter), 3),
    }


def dependent_map_start(conn: psycopg.Connection[Any], flow_slug: str) -> float:
    """When the dependent map ``again`` of the flow's run started (epoch seconds)."""
    row = conn.execute(
        "select extract(epoch from min(started_at))::float8 from pgflow.step_states "
        "where flow_slug = %(flow)s and step_slug = 'again'",
        {"flow": flow_slug},
    ).fetchone()
    assert row is not None and row[0] is not None
    return float(row[0])


def _attr(flow_slug: str) -> str:
    return flow_slug.removeprefix("bench_")


def fill_runs(flow_slug: str, count: int, run_input: Any) -> Callable[[Any], None]:
    """A fill that starts ``count`` runs of ``flow_slug`` with ``run_input`` in one statement."""

    def fill(conn: psycopg.Connection[Any]) -> None:
        conn.execute(START_RUNS, {"flow": flow_slug, "input": Jsonb(run_input), "count": count})

    return fill


def w1(
    server: BenchServer, settings: WorkerSettings, runs: int, profile: bool = False
) -> dict[str, Any]:
    """W1: ``runs`` runs of a one-step flow."""
    fill = fill_runs("bench_w1", runs, {})
    return drain(server, settings, "bench_w1", fill, "w1", runs, profile)


def w2(
    server: BenchServer, settings: WorkerSettings, runs: int, profile: bool = False
) -> dict[str, Any]:
    """W2: ``runs`` runs of a 3-step chain."""
    fill = fill_runs("bench_w2", runs, {})
    return drain(server, settings, "bench_w2", fill, "w2", 3 * runs, profile)


def w3(
    server: BenchServer, settings: WorkerSettings, items: int, profile: bool = False
) -> dict[str, Any]:
    """W3: one run of a root map over ``items`` items followed by a reduce step."""
    fill = fill_runs("bench_w3", 1, list(range(items)))
    return drain(server, settings, "bench_w3", fill, "w3", items + 1, profile)


def start_throughput(server: BenchServer, calls: int) -> dict[str, Any]:
    """start_flow of a one-step flow from one client, one call (transaction) at a time."""
    dsn = server.fresh_db()
    query = START_QUERY
    with psycopg.connect(dsn, autocommit=True) as conn:
        for _ in range(20):  # warm-up: plans cached, statement prepared
            conn.execute(query).fetchone()
        started = time.perf_counter()
        for _ in range(calls):
            conn.execute(query).fetchone()
        seconds = time.perf_counter() - started
    return {"rate": calls / seconds, "calls": calls, "seconds": round(seconds, 3)}


def root_map_start(server: BenchServer, items: int) -> dict[str, Any]:
    """P: one start_flow of a root map over ``items`` items (one client, one call)."""
    dsn = server.fresh_db()
    run_input = Jsonb(list(range(items)))
    with psycopg.connect(dsn, autocommit=True) as conn:
        started = time.perf_counter()
        conn.execute("select run_id from pgflow.start_flow('bench_p', %s)", (run_input,)).fetchone()
        seconds = time.perf_counter() - started
        tasks = conn.execute("select count(*) from pgflow.step_tasks").fetchone()[0]  # type: ignore[index]
        queued = conn.execute("select count(*) from pgmq.q_bench_p").fetchone()[0]  # type: ignore[index]
    if tasks != items or queued != items:
        raise RuntimeError(f"P: {tasks} tasks and {queued} messages for {items} items")
    return {"rate": seconds, "items": items, "tasks_per_s": round(items / seconds, 1)}


def w4(
    server: BenchServer, settings: WorkerSettings, items: int, profile: bool = False
) -> dict[str, Any]:
    """W4: one run of a root map over ``items`` items, a map over its output, then a reduce."""
    fill = fill_runs("bench_w4", 1, list(range(items)))
    return drain(server, settings, "bench_w4", fill, "w4", 2 * items + 1, profile)
