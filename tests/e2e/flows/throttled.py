"""A map step with max_in_flight 2 whose handlers count how many of them run at once (tests/e2e).

Importable as ``tests.e2e.flows.throttled:throttled``. Input: a JSON array of integers.
Each task of ``call_api`` counts itself in, in table ``e2e_in_flight`` (one row: running,
peak; created by the test) of the database named by the worker's environment variable
``E2E_DSN``, holds for 0.2 s (a slow, rate-limited API), counts itself out and returns
10 times its element; ``total`` sums them.
"""

from __future__ import annotations

import asyncio
import os

import psycopg

from pgflow.dsl import Flow

throttled = Flow("throttled", timeout=10, max_attempts=1)


@throttled.map(max_in_flight=2)
async def call_api(item):
    async with await psycopg.AsyncConnection.connect(os.environ["E2E_DSN"], autocommit=True) as c:
        await c.execute(
            "update e2e_in_flight set running = running + 1, peak = greatest(peak, running + 1)"
        )
        try:
            await asyncio.sleep(0.2)
        finally:
            await c.execute("update e2e_in_flight set running = running - 1")
    return item * 10


@throttled.step(depends_on=["call_api"])
def total(input):
    return sum(input["call_api"])
