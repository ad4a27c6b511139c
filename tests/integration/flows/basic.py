"""Chain, diamond, maps, falsy outputs, sync and async handlers."""

from __future__ import annotations

import asyncio

from pgflow.dsl import Flow, Job

# ---------------------------------------------------------------- chain: a -> b -> c
chain = Flow("chain")


@chain.step()
def first(input):
    return {"n": input["n"] + 1}


@chain.step(depends_on=["first"])
async def second(input, ctx):
    flow_input = await ctx.get_flow_input()
    return {"n": input["first"]["n"] * 10, "seen": flow_input["n"], "attempt": ctx.attempt}


@chain.step(depends_on=["second"])
def third(input, ctx):
    # a sync handler reading the run input lazily (blocking, from its thread)
    return {"total": input["second"]["n"] + ctx.flow_input["n"], "task_index": ctx.task_index}


# ---------------------------------------------------------------- diamond: a -> (b, c) -> d
diamond = Flow("diamond")


@diamond.step()
def top(input):
    return input["x"]


@diamond.step(depends_on=["top"])
def left(input):
    return input["top"] + 1


@diamond.step(depends_on=["top"])
async def right(input):
    await asyncio.sleep(0)
    return input["top"] * 2


@diamond.step(depends_on=["left", "right"])
def bottom(input):
    return {"sum": input["left"] + input["right"], "keys": sorted(input)}


# ---------------------------------------------------------------- root map over the run input
root_map = Flow("root_map")


@root_map.map()
def double(item, ctx):
    return {"value": item * 2, "index": ctx.task_index}


@root_map.step(depends_on=["double"])
def collect(input):
    return [entry["value"] for entry in input["double"]]


# ---------------------------------------------------------------- dependent map + empty arrays
dependent_map = Flow("dependent_map")


@dependent_map.array()
def make_list(input):
    return list(range(input["count"]))


@dependent_map.map(array="make_list")
async def square(item):
    return item * item


@dependent_map.step(depends_on=["square"])
def summary(input, ctx):
    return {"squares": input["square"], "flow_input": ctx.flow_input}


# ---------------------------------------------------------------- falsy outputs
falsy = Flow("falsy")


@falsy.step()
def empty_object(input):
    return {}


@falsy.step()
def zero(input):
    return 0


@falsy.step()
def false(input):
    return False


@falsy.step()
def empty_string(input):
    return ""


@falsy.step()
def json_null(input):
    return None


@falsy.step()
def empty_list(input):
    return []


@falsy.step(depends_on=["empty_object", "zero", "false", "empty_string", "json_null", "empty_list"])
def gather(input):
    return input


# ---------------------------------------------------------------- a Job (one-step flow)
@Job("echo_job")
def echo_job(input, ctx):
    return {"echo": input, "step": ctx.step_slug, "worker": ctx.worker_id}
