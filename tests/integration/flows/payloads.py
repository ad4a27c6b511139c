"""Outputs over the size limit (pgflow.max_payload_bytes, 16 MiB by default)."""

from __future__ import annotations

from pgflow.dsl import Flow

#: Characters of the string the oversized step returns: 16 MiB + about 200 kB of JSON.
HUGE_CHARS = 17_000_000

# ---------------------------------------------------------------- huge -> after
oversized = Flow("oversized", max_attempts=2, base_delay=1)


@oversized.step()
def huge(input):
    return "x" * HUGE_CHARS


@oversized.step(depends_on=["huge"])
def after(input):
    return "never"


@oversized.step()
def small(input):
    return {"ok": True}


# ---------------------------------------------------------------- one oversized output among many
# With pgflow.max_payload_bytes at 1 kB: `big`'s output is over it, `items`' are not. Their
# completions usually go out in one complete_tasks call, which the limit refuses as a
# whole; the worker then reports each task alone, so only `big` fails (and is skipped).
mixed_sizes = Flow("mixed_sizes", max_attempts=1)


@mixed_sizes.map(slug="items")
async def items(value):
    return value * 10


@mixed_sizes.step(when_exhausted="skip")
async def big(input):
    return "x" * 2000
