"""L1: start-to-handler latency at a steady start rate on an idle worker.

One ``pgflow-worker`` process serves ``bench_l1``, whose handler returns ``time.time()``.
The benchmark starts runs at a fixed rate (one ``start_flow`` per call, open loop: start
times are scheduled, not paced by completions) and records ``time.time()`` just before
each call. Latency = handler time - start time (same host clock). Two modes: with NOTIFY
(the default) and polling only (``--no-listen``, default ``--poll-interval``); and, as a
diagnostic, with NOTIFY unthrottled (pgmq throttle 0 ms on the queue).
"""

from __future__ import annotations

import time
from typing import Any

import psycopg

from bench.cluster import BenchServer
from bench.procs import Workers, WorkerSettings, pgflow_worker_argv, worker_args
from bench.stats import percentile

START = "select run_id from pgflow.start_flow('bench_l1', '{}'::jsonb)"
STAMPS = """
select run_id::text, (output ->> 't')::float8 from pgflow.step_tasks
where flow_slug = 'bench_l1' and status = 'completed' and run_id = any(%s::uuid[])
"""
FINISH_TIMEOUT_SECONDS = 30.0
#: Idle time before the first start of a repeat, so the worker is really idle.
SETTLE_SECONDS = 1.0


def run_mode(
    server: BenchServer,
    settings: WorkerSettings,
    listen: bool,
    rate: float,
    seconds: float,
    repeats: int,
    throttle_ms: int | None = None,
) -> list[dict[str, Any]]:
    """Start one worker, then ``repeats`` times: start runs at ``rate``/s for ``seconds``.

    Args:
        server: the bench server (a fresh database is made).
        settings: worker settings (concurrency, batch size, connections).
        listen: LISTEN/NOTIFY on (else ``--no-listen``: polling only).
        rate: starts per second.
        seconds: how long each repeat starts runs.
        repeats: measurement rounds on the same idle worker.
        throttle_ms: if set, the queue's pgmq NOTIFY throttle (else the worker default the
            template has); the worker keeps a throttle it finds.

    Returns:
        One dict per repeat: ``p50``, ``p95``, ``p99``, ``max`` (ms) and ``samples``.
    """
    dsn = server.fresh_db()
    if throttle_ms is not None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("select pgmq.enable_notify_insert('bench_l1', %s)", (throttle_ms,))
    args = worker_args(settings, log_level="INFO")
    if not listen:
        args.append("--no-listen")
    name = "l1-poll" if not listen else f"l1-notify{'' if throttle_ms is None else throttle_ms}"
    workers = Workers(pgflow_worker_argv(dsn, ["bench.flows:l1"], args), 1, name)
    results = []
    with workers, psycopg.connect(dsn, autocommit=True) as conn:
        workers.wait_for_log("listening for queue notifications" if listen else "worker running")
        for _ in range(repeats):
            time.sleep(SETTLE_SECONDS)
            results.append(_one_repeat(conn, workers, rate, seconds))
    return results


def _one_repeat(
    conn: psycopg.Connection[Any], workers: Workers, rate: float, seconds: float
) -> dict[str, Any]:
    count = max(1, int(rate * seconds))
    sent: dict[str, float] = {}
    begin = time.monotonic()
    for n in range(count):
        delay = begin + n / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        at = time.time()
        run_id = conn.execute(START).fetchone()[0]  # type: ignore[index]
        sent[str(run_id)] = at
    deadline = time.monotonic() + FINISH_TIMEOUT_SECONDS
    while True:
        stamps = dict(conn.execute(STAMPS, (list(sent),)).fetchall())
        if len(stamps) == len(sent):
            break
        workers.check_alive()
        if time.monotonic() > deadline:
            raise TimeoutError(f"L1: {len(sent) - len(stamps)} runs not handled in time")
        time.sleep(0.1)
    latencies = [(stamps[run_id] - at) * 1000 for run_id, at in sent.items()]
    return {
        "p50": percentile(latencies, 50),
        "p95": percentile(latencies, 95),
        "p99": percentile(latencies, 99),
        "max": max(latencies),
        "samples": len(latencies),
    }
