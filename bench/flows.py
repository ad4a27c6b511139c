"""The flows the benchmark runs: no-op handlers, except L1's, which stamps the time.

Handlers are ``async def`` so a task costs no handler thread: the numbers measure the engine
and the worker loop, not the handler. Workers load them as ``bench.flows:<name>``.
"""

from __future__ import annotations

import time
from typing import Any

from pgflow.dsl import Flow

# ---------------------------------------------------------------- W1: one step per run
w1 = Flow("bench_w1")


@w1.step()
async def only(input: Any) -> None:
    return None


# ---------------------------------------------------------------- W2: a 3-step chain
w2 = Flow("bench_w2")


@w2.step()
async def first(input: Any) -> None:
    return None


@w2.step(depends_on=["first"])
async def second(input: Any) -> None:
    return None


@w2.step(depends_on=["second"])
async def third(input: Any) -> None:
    return None


# ---------------------------------------------------------------- W3: root map then reduce
w3 = Flow("bench_w3")


@w3.map()
async def item(value: Any) -> Any:
    return value


@w3.step(depends_on=["item"])
async def reduce(input: Any) -> dict[str, int]:
    return {"count": len(input["item"])}


# ------------------------------------------------------------- W4: root map, dependent map, reduce
w4 = Flow("bench_w4")


@w4.map(slug="item")
async def w4_item(value: Any) -> Any:
    return value


@w4.map(array="item", slug="again")
async def w4_again(value: Any) -> Any:
    return value


@w4.step(depends_on=["again"], slug="reduce")
async def w4_reduce(input: Any) -> dict[str, int]:
    return {"count": len(input["again"])}


# ---------------------------------------------------------------- P: a root map, never run
p = Flow("bench_p")


@p.map(slug="item")
async def p_item(value: Any) -> Any:
    return value


# ---------------------------------------------------------------- L1: start-to-handler
l1 = Flow("bench_l1")


@l1.step()
async def stamp(input: Any) -> dict[str, float]:
    """Return the wall-clock time at which the handler was called."""
    return {"t": time.time()}


#: Every bench flow, compiled into the template database.
ALL = [w1, w2, w3, w4, p, l1]
