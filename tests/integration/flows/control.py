"""Flows for lifecycle, connection and isolation tests."""

from __future__ import annotations

import asyncio
import time

from pgflow.dsl import Flow

# ---------------------------------------------------------------- a task that takes a while
sleepy = Flow("sleepy", max_attempts=1, timeout=120)


@sleepy.step()
async def nap(input, ctx):
    await asyncio.sleep(input["seconds"])
    return {"slept": input["seconds"], "shutdown_seen": ctx.shutdown.is_set()}


sleepy_sync = Flow("sleepy_sync", max_attempts=1, timeout=120)


@sleepy_sync.step()
def nap_sync(input):
    time.sleep(input["seconds"])
    return {"slept": input["seconds"]}


# ---------------------------------------------------------------- many concurrent sleepers
sleepers = Flow("sleepers", timeout=60)


@sleepers.map()
def sleep_sync(item, ctx):
    time.sleep(item)
    return ctx.flow_input[ctx.task_index] == item  # lazy run input from many threads


@sleepers.map(array="sleep_sync")
async def sleep_async(item, ctx):
    await asyncio.sleep(0.3)
    flow_input = await ctx.get_flow_input()
    return item and len(flow_input) > 0


# ---------------------------------------------------------------- two flows, two workers
flow_a = Flow("flow_a")


@flow_a.step()
def a_step(input):
    return "a"


flow_b = Flow("flow_b")


@flow_b.step()
def b_step(input):
    return "b"


# ---------------------------------------------------------------- same slug, other shape
chain_v2 = Flow("chain")


@chain_v2.step()
def only(input):
    return "v2"


# ---------------------------------------------------------------- same shape, other options
tuned = Flow("tuned", max_attempts=2)


@tuned.step(timeout=10)
def work(input):
    return {"v": 1}


tuned_v2 = Flow("tuned", max_attempts=5, base_delay=1)


@tuned_v2.step(slug="work", start_delay=1)
def work_v2(input):
    return {"v": 2}
