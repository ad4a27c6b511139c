"""Procrastinate app: W1 = one no-op job per run; W2 = a chain of 3 jobs, each deferring the next.

Procrastinate has no DAG: the chain is expressed the usual way, a job deferring the next
one when it runs (``defer_async`` from inside the job, its own transaction).
"""

from __future__ import annotations

import os

from procrastinate import App, PsycopgConnector

QUEUE = "bench"

app = App(connector=PsycopgConnector(conninfo=os.environ.get("BENCH_PEER_DSN", "")))


@app.task(name="noop", queue=QUEUE)
async def noop() -> None:
    return None


@app.task(name="chain_1", queue=QUEUE)
async def chain_1(chain: int) -> None:
    await chain_2.defer_async(chain=chain)


@app.task(name="chain_2", queue=QUEUE)
async def chain_2(chain: int) -> None:
    await chain_3.defer_async(chain=chain)


@app.task(name="chain_3", queue=QUEUE)
async def chain_3(chain: int) -> None:
    return None
