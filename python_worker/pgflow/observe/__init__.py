"""Read-only views of a pgflow database for operators: the CLI and the dashboard read here.

Modules (each reads through a sync :class:`psycopg.Connection` the caller owns, measures
every age on the database clock, and imports no web framework):

- :mod:`~pgflow.observe.workers`: live, dead, deprecated and stopped workers, their tasks
  in flight, and the started tasks of dead workers (``pgflow workers``).
- :mod:`~pgflow.observe.flow_stats`: flows with their runs by status; per step outcomes,
  retry rates and p50/p95 durations over a window; runs started and ended per interval
  (``pgflow flows``).
- :mod:`~pgflow.observe.stuck`: runs that do not move on by themselves, by reason.
- :mod:`~pgflow.observe.gauges`: the database-wide Prometheus gauges (a collector).
- :mod:`~pgflow.observe.runs`, :mod:`~pgflow.observe.run_detail`: the dashboard's runs list
  and run page; :mod:`~pgflow.observe.run_words` says what a run is doing in words,
  :mod:`~pgflow.observe.run_attempts` rebuilds each task's attempts for the timeline,
  :mod:`~pgflow.observe.run_history` reads its failed attempts (with tracebacks), retries
  and reruns from the audit trail, :mod:`~pgflow.observe.run_tasks` its tasks and which a
  dead worker holds,
  :mod:`~pgflow.observe.failed_groups` groups failed runs by flow, step and error.
"""

from __future__ import annotations

from pgflow.observe.flow_stats import (
    RUN_STATUSES,
    WINDOWS,
    FlowSummary,
    RunCountBucket,
    StepStats,
    list_flows,
    run_counts,
    step_stats,
)
from pgflow.observe.gauges import DatabaseGauges
from pgflow.observe.stuck import STUCK_REASONS, StuckRun, stuck_counts, stuck_runs
from pgflow.observe.workers import (
    DEAD_AFTER_S_DEFAULT,
    WORKER_STATES,
    DeadWorkerTask,
    WorkerRow,
    dead_worker_tasks,
    list_workers,
)

__all__ = [
    "DEAD_AFTER_S_DEFAULT",
    "RUN_STATUSES",
    "STUCK_REASONS",
    "WINDOWS",
    "WORKER_STATES",
    "DatabaseGauges",
    "DeadWorkerTask",
    "FlowSummary",
    "RunCountBucket",
    "StepStats",
    "StuckRun",
    "WorkerRow",
    "dead_worker_tasks",
    "list_flows",
    "list_workers",
    "run_counts",
    "step_stats",
    "stuck_counts",
    "stuck_runs",
]
