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
