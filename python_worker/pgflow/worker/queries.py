"""Every SQL statement the worker sends, named and described, in one place.

The worker changes engine state only through ``pgflow.*`` functions, reads its messages
through ``pgflow.read_and_start_tasks`` (not ``pgmq.read``), and the few plain SELECTs below only
read: everything here works under the ``pgflow_worker`` role, which has no pgmq privilege
and cannot write a table (tests/integration/test_roles.py). Placeholders are psycopg
``%(name)s`` parameters. Grep for ``queries.`` in pgflow/worker to find every caller.
"""

from __future__ import annotations

from typing import Final, LiteralString

# ---------------------------------------------------------------- startup

#: Check that the pgflow schema is installed; returns its version (pgflow.version()).
SCHEMA_VERSION: Final[LiteralString] = "select pgflow.version() as version"

#: Every pgflow function and table the statements below use (checked at startup: a role
#: that lacks one gets a clear error naming the grant, instead of failing mid-run).
WORKER_FUNCTIONS: Final[tuple[str, ...]] = (
    "pgflow.version()",
    "pgflow.ensure_flow_compiled(text,jsonb,boolean)",
    "pgflow.sync_flow_options(text,jsonb)",
    "pgflow.track_worker_function(text)",
    "pgflow.register_worker(uuid,text,text)",
    "pgflow.sync_flow_schedule(text,text,jsonb)",
    "pgflow.enable_flow_notify(text,integer)",
    "pgflow.read_and_start_tasks(text,uuid,integer,integer,text[])",
    "pgflow.complete_tasks(uuid[],text[],integer[],jsonb[],integer[])",
    "pgflow.fail_tasks(uuid[],text[],integer[],text[],integer[],boolean[],text[])",
    "pgflow.worker_heartbeat(uuid)",
    "pgflow.cancelled_tasks(uuid[],text[],integer[])",
    "pgflow.tick(integer)",
    "pgflow.get_step_signal(uuid,text)",
    "pgflow.deprecate_worker(uuid)",
    "pgflow.mark_worker_stopped(uuid)",
    "pgflow._now()",
    # (called by pgflow._now() where the test clock is on)
    "pgflow._test_clock_now()",
)
WORKER_TABLES: Final[tuple[str, ...]] = (
    "pgflow.runs",
    "pgflow.permanently_stalled_tasks",
    "pgflow.run_events",
    # (read by pgflow._now() where the test clock is on, with the caller's rights)
    "pgflow.test_clock",
)

#: The current role, and which of the given functions / tables it may not execute / read.
MISSING_PRIVILEGES: Final[LiteralString] = (
    "select current_user as role, array("
    "select f from unnest(%(functions)s::text[]) as f "
    "where not has_function_privilege(f, 'execute') "
    "union all select t from unnest(%(tables)s::text[]) as t "
    "where not has_table_privilege(t, 'select')) as missing"
)

#: The current role (for error messages when it lacks privileges).
CURRENT_ROLE: Final[LiteralString] = "select current_user as role"

#: Register one worker row (fresh uuid4 per process and flow) for the flow's queue.
REGISTER_WORKER: Final[LiteralString] = (
    "select worker_id from pgflow.register_worker("
    "worker_id => %(worker_id)s::uuid, queue_name => %(queue_name)s, "
    "function_name => %(function_name)s)"
)

#: Record that a worker of this deployment (function_name) started.
TRACK_WORKER_FUNCTION: Final[LiteralString] = (
    "select pgflow.track_worker_function(function_name => %(function_name)s)"
)

#: Create the flow from its shape, or verify it; returns {"status", "differences"}.
ENSURE_FLOW_COMPILED: Final[LiteralString] = (
    "select pgflow.ensure_flow_compiled(flow_slug => %(flow_slug)s, "
    "shape => %(shape)s::jsonb, allow_data_loss => %(allow_data_loss)s) as result"
)

#: Make the stored flow's options (retries, delays, timeouts, limits) those of its shape, in place;
#: returns the changes [{"step_slug", "option", "from", "to"}, ...].
SYNC_FLOW_OPTIONS: Final[LiteralString] = (
    "select pgflow.sync_flow_options(flow_slug => %(flow_slug)s, shape => %(shape)s::jsonb) "
    "as changes"
)

#: Make the flow's default pg_cron schedule match its definition (returns the action taken).
SYNC_FLOW_SCHEDULE: Final[LiteralString] = (
    "select pgflow.sync_flow_schedule(%(flow_slug)s, %(schedule)s, %(input)s::jsonb)"
)

#: Enable pgmq's throttled NOTIFY on insert for the flow queue unless it already is
#: (serialised between workers inside the function); true when this call enabled it.
ENABLE_FLOW_NOTIFY: Final[LiteralString] = (
    "select pgflow.enable_flow_notify(flow_slug => %(flow_slug)s, "
    "throttle_ms => %(throttle_ms)s::int) as enabled"
)

# ---------------------------------------------------------------- polling

#: Read up to qty messages of the flow's queue (lease: vt seconds) and claim the tasks of
#: the steps this worker defines, in one call (read_tasks + start_tasks); one row per
#: message read, task columns NULL when its task was not claimed.
READ_AND_START_TASKS: Final[LiteralString] = (
    "select msg_id, read_ct, enqueued_at, vt, message, headers, run_id::text as run_id, step_slug, "
    "task_index, input, flow_input, attempts_count "
    "from pgflow.read_and_start_tasks(flow_slug => %(flow_slug)s, "
    "worker_id => %(worker_id)s::uuid, qty => %(qty)s::int, "
    "visibility_timeout => %(vt)s::int, "
    "step_slugs => %(step_slugs)s::text[])"
)

#: The run input, loaded lazily for ctx.flow_input of non-root steps.
RUN_INPUT: Final[LiteralString] = "select input from pgflow.runs where run_id = %(run_id)s::uuid"

# ---------------------------------------------------------------- reporting

#: Report tasks whose handler returned (outputs: JSON text, JSON null allowed), each as the
#: attempt that ran it; one row per item, in order: the task status after the call, the
#: outcome (completed / failed / refused / ignored), its reason and a detail sentence.
COMPLETE_TASKS: Final[LiteralString] = (
    "select status, outcome, reason, detail from pgflow.complete_tasks("
    "run_ids => %(run_ids)s::uuid[], step_slugs => %(step_slugs)s::text[], "
    "task_indexes => %(task_indexes)s::int[], outputs => %(payloads)s::jsonb[], "
    "attempts => %(attempts)s::int[])"
)

#: COMPLETE_TASKS for one report, with scalar parameters ``run_id``, ``step_slug``,
#: ``task_index``, ``payload`` and ``attempt``: psycopg adapts a Python list ten times slower
#: than a scalar (~35 µs a call for the five lists), and one report per call is the common
#: case of an idle worker and of ``--complete-batch-size 1``.
COMPLETE_TASKS_ONE_REPORT: Final[LiteralString] = (
    "select status, outcome, reason, detail from pgflow.complete_tasks("
    "run_ids => array[%(run_id)s::uuid], step_slugs => array[%(step_slug)s::text], "
    "task_indexes => array[%(task_index)s::int], outputs => array[%(payload)s::jsonb], "
    "attempts => array[%(attempt)s::int])"
)

#: Report tasks whose handler failed (payloads: the error messages), each as the attempt
#: that ran it; the SQL decides between retry (DB-time backoff) and exhaustion, except for
#: a permanent failure (permanents: true when the handler raised PermanentError or returned
#: a value that is not JSON), which is exhausted at once. tracebacks: the handler's formatted
#: traceback (None: none), kept in the details of the task:failed event only. One row per
#: item, in order, with the columns of COMPLETE_TASKS.
FAIL_TASKS: Final[LiteralString] = (
    "select status, outcome, reason, null::text as detail from pgflow.fail_tasks("
    "run_ids => %(run_ids)s::uuid[], step_slugs => %(step_slugs)s::text[], "
    "task_indexes => %(task_indexes)s::int[], error_messages => %(payloads)s::text[], "
    "attempts => %(attempts)s::int[], permanent => %(permanents)s::boolean[], "
    "tracebacks => %(tracebacks)s::text[])"
)

#: FAIL_TASKS for one report, with the scalar parameters of COMPLETE_TASKS_ONE_REPORT,
#: ``permanent`` and ``traceback``.
FAIL_TASKS_ONE_REPORT: Final[LiteralString] = (
    "select status, outcome, reason, null::text as detail from pgflow.fail_tasks("
    "run_ids => array[%(run_id)s::uuid], step_slugs => array[%(step_slug)s::text], "
    "task_indexes => array[%(task_index)s::int], error_messages => array[%(payload)s::text], "
    "attempts => array[%(attempt)s::int], permanent => array[%(permanent)s::boolean], "
    "tracebacks => array[%(traceback)s::text])"
)

# ---------------------------------------------------------------- timers and shutdown

#: Refresh the heartbeat; true = stop reading (deprecated or stopped), NULL = row gone.
WORKER_HEARTBEAT: Final[LiteralString] = (
    "select pgflow.worker_heartbeat(worker_id => %(worker_id)s::uuid) as stop"
)

#: Of the tasks this worker runs (three arrays of one length: a key per task), those
#: cancelled meanwhile (run cancelled or failed, step skipped or completed by hand), with
#: their run's status; asked at the heartbeat while tasks run (pgflow-py mode only).
CANCELLED_TASKS: Final[LiteralString] = (
    "select run_id::text as run_id, step_slug, task_index, run_status "
    "from pgflow.cancelled_tasks(run_ids => %(run_ids)s::uuid[], "
    "step_slugs => %(step_slugs)s::text[], task_indexes => %(task_indexes)s::int[])"
)

#: The tasks of the latest requeue of stalled tasks (one ``requeue_stalled_tasks`` call
#: stamps its ``task:requeued`` events with its transaction's time; calls are serialised by
#: a lock): how many, and up to 20 of them. Asked right after a tick that requeued tasks,
#: so its answer is that tick's requeue unless another call requeued tasks in between (the
#: ticker then sees a count that differs and logs the count alone). The events' BRIN index
#: on ``created_at`` bounds the scan to the last 10 minutes' blocks.
LATEST_REQUEUED_TASKS: Final[LiteralString] = (
    "with latest as (select max(l.created_at) as at from pgflow.run_events as l "
    "where l.event = 'task:requeued' "
    "and l.created_at > (select pgflow._now()) - interval '10 minutes') "
    "select count(*) as requeued, (array_agg(jsonb_build_object('flow_slug', r.flow_slug, "
    "'run_id', e.run_id, 'step_slug', e.step_slug, 'task_index', e.task_index, "
    "'requeued_count', e.details -> 'requeued_count') "
    "order by e.id))[1:20] as tasks "
    "from latest join pgflow.run_events as e "
    "on e.created_at = latest.at and e.event = 'task:requeued' "
    "join pgflow.runs as r on r.run_id = e.run_id"
)

#: Fire the waits past their deadline in at most ``max_runs`` runs, expire runs past their
#: deadline, start queued runs a missed release left, requeue stalled tasks, release held
#: messages: one row (ran, fired_waits, requeued_tasks, expired_runs, started_queued_runs,
#: released_tasks); ran is false when another tick held the try lock (a concurrent call does
#: nothing, so many workers calling it are fine).
TICK: Final[LiteralString] = (
    "select ran, fired_waits, requeued_tasks, expired_runs, started_queued_runs,"
    " released_tasks from pgflow.tick(max_runs => %(max_runs)s::int)"
)

#: The signal that ended the wait of a step (signal_id, signal_name, payload, received_at,
#: timed_out), for ``ctx.signal``: no row when the step's wait has not ended with a signal
#: or a timeout (asked only for steps that wait for a signal and have a handler).
GET_STEP_SIGNAL: Final[LiteralString] = (
    "select signal_id, signal_name, payload, received_at, timed_out"
    " from pgflow.get_step_signal(%(run_id)s::uuid, %(step_slug)s::text)"
)

#: Tasks requeue_stalled_tasks gave up on (permanently stalled, unresolved) stamped after ``since``
#: (NULL: all of them): how many, the latest stamp, and up to 20 of them.
NEW_PERMANENTLY_STALLED: Final[LiteralString] = (
    "select count(*) as stalled, max(permanently_stalled_at) as latest, "
    "(array_agg(jsonb_build_object('flow_slug', flow_slug, 'run_id', run_id, "
    "'step_slug', step_slug, 'task_index', task_index) "
    "order by permanently_stalled_at, run_id, step_slug, task_index))[1:20] as sample "
    "from pgflow.permanently_stalled_tasks "
    "where permanently_stalled_at > coalesce(%(since)s::timestamptz, '-infinity')"
)

#: Mark the worker deprecated at the start of a shutdown (it is draining).
DEPRECATE_WORKER: Final[LiteralString] = (
    "select pgflow.deprecate_worker(worker_id => %(worker_id)s::uuid)"
)

#: Mark the worker stopped at the end of a graceful shutdown.
MARK_WORKER_STOPPED: Final[LiteralString] = (
    "select pgflow.mark_worker_stopped(worker_id => %(worker_id)s::uuid)"
)


#: Liveness probe of the LISTEN connection after a long silence.
PROBE: Final[LiteralString] = "select 1"


def listen_statement(queue_name: str) -> str:
    """Return the LISTEN statement for pgmq's insert notifications of a queue.

    pgmq notifies on ``pgmq.q_<queue>.INSERT`` where ``q_<queue>`` is the lower-cased
    table name; the channel contains dots, so it is quoted as an identifier.

    Args:
        queue_name: the pgmq queue name (= flow slug).

    Returns:
        A ``LISTEN "pgmq.q_<queue>.INSERT"`` statement.
    """
    return f'LISTEN "{notify_channel(queue_name)}"'


def notify_channel(queue_name: str) -> str:
    """Return pgmq's insert-notification channel name for a queue.

    Args:
        queue_name: the pgmq queue name (= flow slug; a valid slug, so no quotes inside).

    Returns:
        ``pgmq.q_<lower-cased queue>.INSERT``.
    """
    if '"' in queue_name:
        raise ValueError(f"invalid queue name: {queue_name!r}")
    return f"pgmq.q_{queue_name.lower()}.INSERT"
