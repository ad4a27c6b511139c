"""Start runs and follow them: :class:`Client` (sync) and :class:`AsyncClient` (asyncio).

Modules, one job each:

- ``queries``: every SQL statement the clients send;
- ``plans``: each verb once (statements, argument checks, error translation, parsing),
  run by both clients;
- ``records``: what the verbs return (:class:`Run`, :class:`RunState`, :class:`StepState`);
- ``sync_client`` and ``async_client``: the two clients, thin layers over the plans.
"""

from pgflow.client.async_client import AsyncClient
from pgflow.client.plans import HasSlug, canonical_run_id, encode_run_input
from pgflow.client.records import TERMINAL_RUN_STATUSES, Run, RunState, StepState
from pgflow.client.sync_client import Client

__all__ = [
    "TERMINAL_RUN_STATUSES",
    "AsyncClient",
    "Client",
    "HasSlug",
    "Run",
    "RunState",
    "StepState",
    "canonical_run_id",
    "encode_run_input",
]
