"""Start runs and follow them: :class:`Client` (sync) and :class:`AsyncClient` (asyncio).

Modules, one job each:

- ``queries``: every SQL statement the clients send;
- ``plans``: each verb once (statements, argument checks, error translation, parsing),
  run by both clients;
- ``control_plans``: the plans of the run-control verbs and of the audit trail;
- ``signal_plans``: the plans of ``send_signal`` and ``get_run_waits``;
- ``records``: what the verbs return (:class:`Run`, :class:`RunState`, :class:`StepState`,
  :class:`RunControlResult`, :class:`RunEvent`, :class:`RetryingTask`); ``signal_records``
  (:class:`SignalResult`, :class:`RunWait`) and ``start_records`` (:class:`StartedRun`,
  :class:`RunSlot`, :class:`RunDeadline`) apart;
- ``start_options``: the checks of ``start_flow``'s keys and deadline, and how the
  database's refusals of them (limits, isolation) become pgflow errors;
- ``sync_client`` and ``async_client``: the two clients, thin layers over the plans;
- ``sync_control`` and ``async_control``: their run-control verbs (mixins);
- ``sync_signals`` and ``async_signals``: their signal verbs (mixins).
"""

from pgflow.client.async_client import AsyncClient
from pgflow.client.plans import HasSlug, canonical_run_id, encode_run_input
from pgflow.client.records import (
    RUN_STATUSES,
    TERMINAL_RUN_STATUSES,
    RetryingTask,
    Run,
    RunControlResult,
    RunEvent,
    RunState,
    StepState,
)
from pgflow.client.signal_records import RunWait, SignalResult
from pgflow.client.start_records import RunDeadline, RunSlot, StartedRun
from pgflow.client.sync_client import Client

__all__ = [
    "RUN_STATUSES",
    "TERMINAL_RUN_STATUSES",
    "AsyncClient",
    "Client",
    "HasSlug",
    "RetryingTask",
    "Run",
    "RunControlResult",
    "RunDeadline",
    "RunEvent",
    "RunSlot",
    "RunState",
    "RunWait",
    "SignalResult",
    "StartedRun",
    "StepState",
    "canonical_run_id",
    "encode_run_input",
]
