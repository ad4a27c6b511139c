"""Flows for run control in the worker: failures no retry can cure (PermanentError, an
output that is not JSON), each in a flow that would otherwise retry (max_attempts 3).
"""

from __future__ import annotations

from pgflow import PermanentError
from pgflow.dsl import Flow

# ---------------------------------------------------------------- PermanentError
permanent = Flow("permanent", max_attempts=3, base_delay=1)


@permanent.step()
def charge(input, ctx):
    raise PermanentError(f"amount {input['amount']} is negative (attempt {ctx.attempt})")


@permanent.step(depends_on=["charge"])
def receipt(input):
    return "never"


# ---------------------------------------------------------------- an output that is not JSON
not_json = Flow("not_json", max_attempts=3, base_delay=1)


@not_json.step()
async def returns_a_set(input, ctx):
    return {ctx.attempt}
