"""The pgflow worker: reads a flow's tasks, runs their handlers, reports the outcomes.

Every state transition stays in SQL: the worker only calls ``pgflow.*`` functions
(``register_worker``, ``read_tasks``, ``start_tasks``, ``complete_task``, ``fail_task``,
...), so it runs under the ``pgflow_worker`` role. Modules, one job each:

- ``runner``: :class:`Worker`, wiring everything; startup and shutdown sequence;
- ``poller``: two-phase polling of one flow's queue (``read_tasks`` + ``start_tasks``);
- ``notify``: the LISTEN connection (pgmq insert notifications) and its reconnection;
- ``claimed_task``: a task claimed by this worker; ``executor``: running one to its
  report (timeout, permanent failures, the report); ``handler_call``: the handler's
  input, its output as JSON, the thread a sync handler runs in;
- ``cancellation``: telling handlers of tasks cancelled in SQL (``ctx.cancelled``);
- ``lifecycle``: states, signals, drain; ``heartbeat``: the heartbeat timer (which runs
  the cancellation check);
- ``tick``: the periodic ``pgflow.tick()`` call (fires waits, requeues stalled tasks);
- ``step_signal``: the signal a waiting step took, for ``ctx.signal``;
- ``watchdog``: a thread that names the handler blocking the event loop;
- ``pool``: the connection pool (idle connections given back, outages logged once, with
  ``outage``); ``metrics``: the Prometheus metrics (``--metrics-port``); ``summary``: the
  periodic summary log line;
- ``queries``: every SQL statement sent; ``config``: settings; ``log``: structured logs.

The ``pgflow-worker`` command is :mod:`pgflow.cli.worker`; the worker's exceptions
(:class:`~pgflow.errors.WorkerStartupError`, :class:`~pgflow.errors.FlowShapeMismatch`)
and the one handlers raise (:class:`~pgflow.errors.PermanentError`) are in
:mod:`pgflow.errors`.
"""

from pgflow.worker.config import WorkerConfig
from pgflow.worker.lifecycle import WorkerState
from pgflow.worker.runner import Worker

__all__ = ["Worker", "WorkerConfig", "WorkerState"]
