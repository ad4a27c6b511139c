"""The two SQL interfaces the worker can run on: pgflow-py's, and upstream pgflow's alone.

On a database with pgflow-py's schema the worker uses its functions (:data:`PGFLOW_PY`):
one ``read_and_start_tasks`` per poll, group commit through ``complete_tasks`` /
``fail_tasks``, the worker registry functions, NOTIFY through ``enable_flow_notify`` and
its own ``tick`` timer (waits and stalled tasks). On a database that holds only upstream
pgflow's core (installed by upstream's migrations, not adopted) it runs in *upstream mode*
(:data:`UPSTREAM`), as upstream's own worker does: ``pgmq.read`` then upstream's
``start_tasks``, one ``complete_task`` / ``fail_task`` per report, and its own rows of
``pgflow.workers`` written directly. What upstream's SQL cannot do is off there: group
commit, NOTIFY wake-ups (it polls), the tick (wait steps do not exist there, and
upstream's cron job requeues stalled tasks), permanent failures (retried as ordinary
ones) and the cancellation check; ``pgflow install`` adopts the schema and turns them on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, LiteralString

from pgflow.worker import queries


@dataclass(frozen=True)
class SqlMode:
    """The statements of one SQL interface, and the features it has.

    Attributes:
        name: ``"pgflow-py"`` or ``"upstream"``.
        read_and_start: read and claim, one call per poll (the columns of
            ``queries.READ_AND_START_TASKS``).
        complete_batch / complete_one / fail_batch / fail_one: the report statements
            (:class:`~pgflow.worker.reports.ReportBatcher`).
        register_worker / heartbeat / deprecate_worker: the worker-row statements.
        group_commit: reports may go several per call.
        notify: NOTIFY wake-ups (``enable_flow_notify``) are available.
        tick: the worker may call ``pgflow.tick()`` itself (fire waits, requeue stalled
            tasks); upstream's SQL has no tick (its cron job requeues stalled tasks).
        sync: flow options and schedules are synced at start.
        run_control: failures may be reported permanent and with the handler's traceback
            (``fail_tasks``'s ``permanent`` and ``tracebacks`` arguments) and the heartbeat
            asks ``pgflow.cancelled_tasks`` which running tasks were cancelled
            (``ctx.cancelled``).
    """

    name: str
    read_and_start: LiteralString
    complete_batch: LiteralString
    complete_one: LiteralString
    fail_batch: LiteralString
    fail_one: LiteralString
    register_worker: LiteralString
    heartbeat: LiteralString
    deprecate_worker: LiteralString
    group_commit: bool
    notify: bool
    tick: bool
    sync: bool
    run_control: bool


PGFLOW_PY: Final = SqlMode(
    name="pgflow-py",
    read_and_start=queries.READ_AND_START_TASKS,
    complete_batch=queries.COMPLETE_TASKS,
    complete_one=queries.COMPLETE_TASKS_ONE_REPORT,
    fail_batch=queries.FAIL_TASKS,
    fail_one=queries.FAIL_TASKS_ONE_REPORT,
    register_worker=queries.REGISTER_WORKER,
    heartbeat=queries.WORKER_HEARTBEAT,
    deprecate_worker=queries.DEPRECATE_WORKER,
    group_commit=True,
    notify=True,
    tick=True,
    sync=True,
    run_control=True,
)

# ---------------------------------------------------------------- upstream mode

#: Read with pgmq and claim with upstream's start_tasks in one round trip; the columns of
#: queries.READ_AND_START_TASKS. attempts_count: the outer scan of step_tasks reads the
#: rows as they were when the statement began, before start_tasks added the claim's
#: attempt, hence the + 1.
_UPSTREAM_READ_AND_START: Final[LiteralString] = (
    "with got as materialized ("
    "select * from pgmq.read(%(flow_slug)s::text, %(vt)s::int, %(qty)s::int)), "
    "started as materialized ("
    "select * from pgflow.start_tasks(%(flow_slug)s::text, "
    "array(select g.msg_id from got as g), %(worker_id)s::uuid)) "
    "select g.msg_id, g.read_ct, g.enqueued_at, g.vt, g.message, g.headers, "
    "s.run_id::text as run_id, s.step_slug, s.task_index, s.input, s.flow_input, "
    "t.attempts_count + 1 as attempts_count "
    "from got as g left join started as s on s.msg_id = g.msg_id "
    "left join pgflow.step_tasks as t on t.run_id = s.run_id and t.step_slug = s.step_slug "
    "and t.task_index = s.task_index order by g.msg_id"
)

#: One completion through upstream's complete_task, as a ReportResult row (always one).
_UPSTREAM_COMPLETE_ONE: Final[LiteralString] = (
    "select t.status, case t.status when 'completed' then 'completed' "
    "when 'failed' then 'failed' else 'ignored' end as outcome, "
    "case when t.status is null then 'unknown_task' when t.status = 'failed' "
    "then 'type_violation' when t.status <> 'completed' then 'task_not_started' end as reason, "
    "t.error_message as detail "
    "from (select 1) as one left join lateral pgflow.complete_task(%(run_id)s::uuid, "
    "%(step_slug)s::text, %(task_index)s::int, %(payload)s::jsonb) as t on true"
)

#: One failure through upstream's fail_task, as a ReportResult row (always one).
_UPSTREAM_FAIL_ONE: Final[LiteralString] = (
    "select t.status, case t.status when 'queued' then 'retried' "
    "when 'failed' then 'failed' else 'ignored' end as outcome, "
    "case when t.status is null then 'unknown_task' "
    "when t.status not in ('queued', 'failed') then 'task_not_started' end as reason, "
    "null::text as detail "
    "from (select 1) as one left join lateral pgflow.fail_task(%(run_id)s::uuid, "
    "%(step_slug)s::text, %(task_index)s::int, %(payload)s::text) as t on true"
)

UPSTREAM: Final = SqlMode(
    name="upstream",
    read_and_start=_UPSTREAM_READ_AND_START,
    complete_batch=_UPSTREAM_COMPLETE_ONE,  # never used: one report per call
    complete_one=_UPSTREAM_COMPLETE_ONE,
    fail_batch=_UPSTREAM_FAIL_ONE,
    fail_one=_UPSTREAM_FAIL_ONE,
    register_worker=(
        "insert into pgflow.workers (worker_id, queue_name, function_name) "
        "values (%(worker_id)s::uuid, %(queue_name)s, %(function_name)s) returning worker_id"
    ),
    heartbeat=(
        "with beat as (update pgflow.workers set last_heartbeat_at = now() "
        "where worker_id = %(worker_id)s::uuid returning deprecated_at is not null as stop) "
        "select (select b.stop from beat as b) as stop"
    ),
    deprecate_worker=(
        "update pgflow.workers set deprecated_at = now() "
        "where worker_id = %(worker_id)s::uuid and deprecated_at is null"
    ),
    group_commit=False,
    notify=False,
    tick=False,
    sync=False,
    run_control=False,
)

#: What upstream mode calls; the worker checks they exist before it reads a message (a
#: name without arguments: any overload, as pgmq's read changed its trailing arguments).
UPSTREAM_FUNCTIONS: Final[tuple[str, ...]] = (
    "pgmq.read",
    "pgflow.start_tasks(text,bigint[],uuid)",
    "pgflow.complete_task(uuid,text,integer,jsonb)",
    "pgflow.fail_task(uuid,text,integer,text)",
    "pgflow.ensure_flow_compiled(text,jsonb,boolean)",
    "pgflow.track_worker_function(text)",
    "pgflow.mark_worker_stopped(uuid)",
)

#: The one log line of upstream mode, with what it cannot do.
UPSTREAM_NOTICE: Final = (
    "running in upstream mode: this database holds upstream pgflow's SQL, not pgflow-py's; "
    "off here: group commit (each task is reported with its own complete_task / "
    "fail_task), NOTIFY wake-ups (the worker polls every --poll-interval seconds) and the "
    "stalled-task requeue (upstream's requeue_stalled_tasks cron job does it), cron= "
    "schedules and option changes (the stored options stay as they are), the fencing "
    "of late reports by attempt, permanent failures (PermanentError and outputs that are "
    "not JSON fail as ordinary failures, retried while attempts remain) and the "
    "cancellation check (ctx.cancelled is never set); run `pgflow install` to adopt the "
    "schema and turn them on"
)
