"""Flows served by real ``pgflow-worker`` processes in the fault suite (tests/e2e).

Importable as ``tests.e2e.flows.faults:<attr>``. Their behaviour is steered through the
worker's environment, so the same flow can be served by a worker about to be killed and
by the worker that recovers after it:

- ``E2E_HOLD_SECONDS``: seconds the crash / side-effect / stuck handlers wait (asleep, on
  the loop) before returning; a worker that will be SIGKILLed holds its tasks this way.
  Default 0.
- ``E2E_SIDE_EFFECT_FILE``: file the ``side_effect`` handler appends one line to per
  execution, before it holds and returns.
- ``E2E_DSN``: database where the clock-skew handlers record each claim, with the
  database's and the worker's clock (table ``e2e_claims``, created by the test).
"""

from __future__ import annotations

import asyncio
import os
import time
from datetime import UTC, datetime

import psycopg

from pgflow.dsl import Flow


async def _hold() -> None:
    seconds = float(os.environ.get("E2E_HOLD_SECONDS", "0"))
    if seconds:
        await asyncio.sleep(seconds)


# ---------------------------------------------------------------- SIGKILL with tasks in flight
# A root single step, a root map over the run input, and a step joining both. Short
# timeout: a task whose worker died is requeued timeout + 30 s after it started.
crash = Flow("crash", timeout=4, max_attempts=3, base_delay=1)


@crash.step()
async def head(input):
    await _hold()
    return len(input)


@crash.map()
async def each(item):
    await _hold()
    return item * 2


@crash.step(depends_on=["head", "each"])
def tail(input):
    return {"count": input["head"], "sum": sum(input["each"])}


# ---------------------------------------------------------------- side effect, then killed
side_effect = Flow("side_effect", timeout=4, max_attempts=3, base_delay=1)


@side_effect.step()
async def effect(input, ctx):
    with open(os.environ["E2E_SIDE_EFFECT_FILE"], "a") as out:
        out.write(f"{ctx.run_id} {ctx.step_slug} {ctx.task_index} attempt={ctx.attempt}\n")
        out.flush()
        os.fsync(out.fileno())
    await _hold()
    return {"attempt": ctx.attempt}


# ---------------------------------------------------------------- killed again and again
stuck = Flow("stuck", timeout=3, max_attempts=5)


@stuck.step()
async def only(input):
    await _hold()
    return "done"


# ---------------------------------------------------------------- quick work
quick = Flow("quick", timeout=10)


@quick.step()
async def echo(input):
    return input


load = Flow("load", timeout=5, max_attempts=5, base_delay=1)


@load.map()
async def part(item):
    await asyncio.sleep(0.2)  # long enough for a restart to catch tasks mid-handler
    return item + 1


@load.step(depends_on=["part"])
def added(input):
    return sum(input["part"])


# ---------------------------------------------------------------- misbehaving handlers
# Each failing step is skipped once exhausted, so the run completes and every outcome is
# recorded on its step state.
misbehaving = Flow("misbehaving", max_attempts=1, timeout=30)


@misbehaving.step(timeout=3, when_exhausted="skip")
async def hangs(input):
    await asyncio.sleep(3600)


@misbehaving.step(when_exhausted="skip")
def raises(input):
    raise RuntimeError("handler bug")


@misbehaving.step(when_exhausted="skip")
async def not_json(input):
    return object()


@misbehaving.step(timeout=10, when_exhausted="skip")
async def blocks_loop(input):
    time.sleep(2)  # blocks the event loop (the fault under test), within its timeout
    return "blocked 2 s"


@misbehaving.step(timeout=3, when_exhausted="skip")
async def blocks_past_timeout(input):
    time.sleep(4)  # blocks the event loop past its own timeout
    return "too late"


steady = Flow("steady", timeout=30)


@steady.map()
async def tick(item):
    await asyncio.sleep(0.01)
    return item


# ---------------------------------------------------------------- clock skew
skew = Flow("skew", max_attempts=3, base_delay=2, timeout=10)


async def _record_claim(ctx) -> None:
    async with await psycopg.AsyncConnection.connect(os.environ["E2E_DSN"], autocommit=True) as c:
        await c.execute(
            "insert into e2e_claims (run_id, step_slug, attempt, read_ct, worker_time) "
            "values (%s, %s, %s, %s, %s)",
            (
                ctx.run_id,
                ctx.step_slug,
                ctx.attempt,
                ctx.raw_message["read_ct"],
                datetime.fromtimestamp(time.time(), UTC),
            ),
        )


@skew.step(start_delay=5)
async def delayed(input, ctx):
    await _record_claim(ctx)
    return "woke"


@skew.step()
async def flaky(input, ctx):
    await _record_claim(ctx)
    if ctx.attempt < 3:
        raise RuntimeError(f"attempt {ctx.attempt} fails")
    return {"attempt": ctx.attempt}


# ---------------------------------------------------------------- a worker frozen by SIGSTOP
# A map of tasks with a short timeout and max_attempts 2: a worker frozen past the stall
# threshold must neither time its handlers out on resume nor, through a late failure
# report, spend the last attempt of a task another worker holds.
frozen = Flow("frozen", timeout=3, max_attempts=2, base_delay=1)


@frozen.map()
async def hold_and_sign(item):
    await _hold()
    return {"item": item, "pid": os.getpid()}
