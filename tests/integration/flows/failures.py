"""Retries, exhaustion modes, handler errors, bad outputs and timeouts."""

from __future__ import annotations

import asyncio
import time

from pgflow.dsl import Flow

# ---------------------------------------------------------------- retries with DB backoff
retries = Flow("retries", max_attempts=3, base_delay=1)


@retries.step()
def flaky(input, ctx):
    if ctx.attempt < 3:
        raise RuntimeError(f"attempt {ctx.attempt} failed")
    return {"attempt": ctx.attempt, "read_ct": ctx.raw_message["read_ct"]}


# ---------------------------------------------------------------- exhaustion: fail
exhaust_fail = Flow("exhaust_fail", max_attempts=1)


@exhaust_fail.step()
def boom(input):
    raise ValueError("boom")


@exhaust_fail.step(depends_on=["boom"])
def after(input):
    return "never"


# ---------------------------------------------------------------- exhaustion: skip
exhaust_skip = Flow("exhaust_skip", max_attempts=1)


@exhaust_skip.step(when_exhausted="skip")
def boom_skip(input):
    raise ValueError("boom")


@exhaust_skip.step(depends_on=["boom_skip"])
def after_skip(input):
    return {"input": input}


# ---------------------------------------------------------------- exhaustion: skip-cascade
exhaust_cascade = Flow("exhaust_cascade", max_attempts=1)


@exhaust_cascade.step(when_exhausted="skip-cascade")
def boom_cascade(input):
    raise ValueError("boom")


@exhaust_cascade.step(depends_on=["boom_cascade"])
def after_cascade(input):
    return "never"


@exhaust_cascade.step()
def independent(input):
    return "ran"


# ---------------------------------------------------------------- errors and bad outputs
errors = Flow("errors", max_attempts=1)


@errors.step(when_exhausted="skip")
def raises(input):
    raise ValueError("nope")


@errors.step(when_exhausted="skip")
def returns_set(input):
    return {1, 2}


@errors.step(when_exhausted="skip")
def returns_nan(input):
    return float("nan")


@errors.step(when_exhausted="skip")
async def returns_nul(input):
    return "a\x00b"  # valid JSON text, but jsonb refuses \u0000


@errors.step()
def fine(input):
    return "ok"


# ---------------------------------------------------------------- timeouts (async and sync)
timeouts = Flow("timeouts", max_attempts=1, timeout=3)


@timeouts.step(when_exhausted="skip")
async def slow_async(input):
    await asyncio.sleep(60)


@timeouts.step(when_exhausted="skip")
def slow_sync(input):
    time.sleep(60)


@timeouts.step()
def quick(input):
    return "done"
