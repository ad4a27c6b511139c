"""Every SQL statement the client sends, named and described, in one place.

The same statements serve :class:`~pgflow.client.Client` and
:class:`~pgflow.client.AsyncClient` (through the plans of :mod:`pgflow.client.plans`), in
the style of the worker's registry (:mod:`pgflow.worker.queries`). The client changes
engine state only through ``pgflow.start_flow_with_states`` and otherwise only reads, so
everything here works under the ``pgflow_client`` role. Placeholders are psycopg
``%(name)s`` parameters; each statement returns the columns its comment names.
"""

from __future__ import annotations

from typing import Final, LiteralString

#: Start a run; one row, column ``state``: {"run": <runs row>, "steps": [<step_states
#: rows>]}. The input is JSON text (serialised and checked by the client), the run id a
#: canonical uuid or NULL (random).
START_FLOW: Final[LiteralString] = (
    "select pgflow.start_flow_with_states(%(flow_slug)s, %(input)s::jsonb, %(run_id)s::uuid)"
    " as state"
)

#: One run and its step states (column ``state``, as START_FLOW's), or NULL for an
#: unknown run.
GET_RUN: Final[LiteralString] = "select pgflow.get_run_with_states(%(run_id)s) as state"

#: Task counts of a run by step and task status: rows of (step_slug, status, n).
TASK_COUNTS: Final[LiteralString] = (
    "select step_slug, status, count(*)::int as n from pgflow.step_tasks"
    " where run_id = %(run_id)s group by step_slug, status"
)

#: Latest runs, newest first, optionally of one flow and/or one status: one ``run``
#: column (``to_jsonb`` of the ``pgflow.runs`` row) per run.
LIST_RUNS: Final[LiteralString] = (
    "select to_jsonb(r) as run from pgflow.runs as r"
    " where (%(flow_slug)s::text is null or r.flow_slug = %(flow_slug)s)"
    " and (%(status)s::text is null or r.status = %(status)s)"
    " order by r.started_at desc, r.run_id limit %(limit)s"
)
