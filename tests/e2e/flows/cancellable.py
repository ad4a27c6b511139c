"""A flow whose handlers wait, for cancelling its runs while they do (tests/e2e).

Importable as ``tests.e2e.flows.cancellable:cancellable``. Input ``{"seconds": N}``: both
root steps wait up to N seconds, one ``async def`` (``asyncio.sleep``), one ``def``
(``ctx.cancelled.wait``), then return. Each writes marker files in the directory named by
the worker's environment variable ``E2E_MARKER_DIR``:

- ``<run_id>.<step_slug>.started`` when it starts waiting;
- ``<run_id>.<step_slug>.cancelled`` when it learns that its task was cancelled (the async
  one on ``asyncio.CancelledError``, the sync one when ``ctx.cancelled`` is set), holding
  ``ctx.cancelled.is_set()`` at that moment.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pgflow.dsl import Flow

cancellable = Flow("cancellable", max_attempts=1, timeout=120)


def _mark(ctx, what: str, text: str = "") -> None:
    marker = Path(os.environ["E2E_MARKER_DIR"]) / f"{ctx.run_id}.{ctx.step_slug}.{what}"
    marker.write_text(text)


@cancellable.step()
async def waits_async(input, ctx):
    _mark(ctx, "started")
    try:
        await asyncio.sleep(input["seconds"])
    except asyncio.CancelledError:
        _mark(ctx, "cancelled", str(ctx.cancelled.is_set()))
        raise
    return "slept"


@cancellable.step()
def waits_sync(input, ctx):
    _mark(ctx, "started")
    told = ctx.cancelled.wait(input["seconds"])
    if told:
        _mark(ctx, "cancelled", str(ctx.cancelled.is_set()))
    return {"told": told}
