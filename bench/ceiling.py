"""The raw-pgmq ceiling: what the queue alone allows on this cluster, in this run.

Each client process has one autocommit connection and loops until the queue is empty:

- (a) ``pgmq.read`` 10, then ``pgmq.archive`` the batch (2 transactions per 10 messages);
- (b) ``pgmq.read`` 10, then one ``pgmq.archive`` transaction per message (11 transactions
  per 10 messages): the per-task commit ceiling, what a worker that commits each task
  separately can at best reach.

The queue is filled beforehand with messages shaped like pgflow's. The processes start
together behind a barrier; the rate is messages / (last finish - first start).
"""

from __future__ import annotations

import multiprocessing
import time
from typing import Any

import psycopg

from bench.cluster import CEILING_QUEUE

BATCH = 10
#: Lease taken by the reads (seconds); long enough never to expire during a measurement.
READ_VT_SECONDS = 60

FILL = """
select count(*) from pgmq.send_batch(%(queue)s, (
  select array_agg(jsonb_build_object(
    'flow_slug', 'bench_ceiling', 'run_id', gen_random_uuid(), 'step_slug', 'only',
    'task_index', 0))
  from generate_series(1, %(count)s)))
"""
READ = "select msg_id from pgmq.read(%s, %s, %s)"
ARCHIVE_BATCH = "select pgmq.archive(%s, %s::bigint[])"
ARCHIVE_ONE = "select pgmq.archive(%s, %s::bigint)"


def fill_queue(dsn: str, count: int) -> None:
    """Put ``count`` messages into the ceiling queue and analyze it."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(FILL, {"queue": CEILING_QUEUE, "count": count})
        conn.execute(f"analyze pgmq.q_{CEILING_QUEUE}")


def _client(dsn: str, mode: str, barrier: Any, results: Any) -> None:
    """One client process: drain the queue in ``mode`` a or b; report (n, start, end)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select 1")
        barrier.wait()
        started = time.time()
        done = 0
        while True:
            ids = [r[0] for r in conn.execute(READ, (CEILING_QUEUE, READ_VT_SECONDS, BATCH))]
            if not ids:
                break
            if mode == "a":
                conn.execute(ARCHIVE_BATCH, (CEILING_QUEUE, ids))
            else:
                for msg_id in ids:
                    conn.execute(ARCHIVE_ONE, (CEILING_QUEUE, msg_id))
            done += len(ids)
        results.put((done, started, time.time()))


def measure(dsn: str, mode: str, processes: int, messages: int) -> dict[str, float]:
    """Drain ``messages`` with ``processes`` clients in ``mode``; return the rate.

    Returns:
        ``{"rate": msg/s, "seconds": elapsed, "messages": drained}``.
    """
    fill_queue(dsn, messages)
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(processes)
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_client, args=(dsn, mode, barrier, results), daemon=True)
        for _ in range(processes)
    ]
    for proc in procs:
        proc.start()
    outcomes = [results.get(timeout=600) for _ in procs]
    for proc in procs:
        proc.join(30)
    drained = sum(o[0] for o in outcomes)
    seconds = max(o[2] for o in outcomes) - min(o[1] for o in outcomes)
    if drained != messages:
        raise RuntimeError(f"ceiling ({mode}) drained {drained} of {messages} messages")
    return {"rate": drained / seconds, "seconds": seconds, "messages": drained}
