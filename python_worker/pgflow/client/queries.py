"""Every SQL statement the client sends, named and described, in one place.

The same statements serve :class:`~pgflow.client.Client` and
:class:`~pgflow.client.AsyncClient` (through the plans of :mod:`pgflow.client.plans`), in
the style of the worker's registry (:mod:`pgflow.worker.queries`). The client changes
engine state only through ``pgflow.start_flow_with_states``, ``pgflow.start_flow`` and
``pgflow.send_signal`` (which the ``pgflow_client`` role may call) and the run-control
verbs (``pgflow.cancel_run`` ... ``pgflow.complete_step``, which the ``pgflow_operator``
role may call); everything else
only reads, and works under either role. Placeholders are psycopg ``%(name)s`` parameters;
each statement returns the columns its comment names.
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

#: Start a run with pgflow-py's trailing options; one row (run_id, duplicate). Keys are text
#: or NULL; the deadline is ``deadline_at`` (timestamptz) or, relative, ``pgflow._now()``
#: plus ``deadline_in`` (interval), so the engine's clock decides; both NULL: the flow's
#: run_timeout, if any. The run's state is read by GET_RUN in a second statement: a STABLE
#: function in this statement would not see the row start_flow inserts.
START_FLOW_KEYED: Final[LiteralString] = (
    "select run_id, duplicate from pgflow.start_flow("
    "%(flow_slug)s, %(input)s::jsonb, %(run_id)s::uuid,"
    " idempotency_key => %(idempotency_key)s::text,"
    " concurrency_key => %(concurrency_key)s::text,"
    " deadline => coalesce(%(deadline_at)s::timestamptz,"
    " pgflow._now() + %(deadline_in)s::interval))"
)

#: ``pgflow.get_run_slot``: where a run with a concurrency key stands; one row
#: (concurrency_key, concurrency_limit, on_limit, queue_position, holders uuid[]), none for
#: a run without key; raises no_data_found for an unknown run.
GET_RUN_SLOT: Final[LiteralString] = (
    "select concurrency_key, concurrency_limit, on_limit, queue_position, holders"
    " from pgflow.get_run_slot(%(run_id)s::uuid)"
)

#: A run's deadline with the seconds left on the engine's clock (``pgflow._now()``), in one
#: statement: one row
#: (deadline, seconds_left, expired_at) (deadline NULL when the run has none), none for an
#: unknown run.
#: The engine's time (``pgflow._now()``: the database's ``now()``, moved by the test clock
#: in a test database): what ages and times left are measured against.
ENGINE_TIME: Final[LiteralString] = "select pgflow._now()"

GET_RUN_DEADLINE: Final[LiteralString] = (
    "select r.deadline, extract(epoch from r.deadline - pgflow._now())::float8 as seconds_left,"
    " r.expired_at from pgflow.runs as r where r.run_id = %(run_id)s::uuid"
)

#: Task counts of a run by step and task status: rows of (step_slug, status, n).
TASK_COUNTS: Final[LiteralString] = (
    "select step_slug, status, count(*)::int as n from pgflow.step_tasks"
    " where run_id = %(run_id)s group by step_slug, status"
)

#: Latest runs, newest first, optionally of one flow and/or one status, and/or with an
#: error (a failed step, or a task with a failed attempt; of step ``step_slug`` when given;
#: whose message contains ``error_contains``, case-insensitive, when given): one ``run``
#: column (``to_jsonb`` of the ``pgflow.runs`` row) per run.
LIST_RUNS: Final[LiteralString] = (
    "select to_jsonb(r) as run from pgflow.runs as r"
    " where (%(flow_slug)s::text is null or r.flow_slug = %(flow_slug)s)"
    " and (%(status)s::text is null or r.status = %(status)s)"
    " and ((%(step_slug)s::text is null and %(error_contains)s::text is null)"
    "  or exists (select 1 from pgflow.step_states as ss"
    "   where ss.run_id = r.run_id and ss.status = 'failed'"
    "   and (%(step_slug)s::text is null or ss.step_slug = %(step_slug)s)"
    "   and (%(error_contains)s::text is null"
    "    or strpos(lower(coalesce(ss.error_message, '')), lower(%(error_contains)s)) > 0))"
    "  or exists (select 1 from pgflow.step_tasks as t"
    "   where t.run_id = r.run_id and t.error_message is not null"
    "   and (%(step_slug)s::text is null or t.step_slug = %(step_slug)s)"
    "   and (%(error_contains)s::text is null"
    "    or strpos(lower(t.error_message), lower(%(error_contains)s)) > 0)))"
    " order by r.started_at desc, r.run_id limit %(limit)s"
)

# ---------------------------------------------------------------- run control
# Each verb returns one row (run_id, status, changed, detail): pgflow.run_control_result.
# Parameters: run_id (canonical uuid text), actor (not blank), reason and expected_status
# (NULL or text).

#: ``pgflow.cancel_run``: a started or paused run is cancelled for good.
CANCEL_RUN: Final[LiteralString] = (
    "select run_id, status, changed, detail from pgflow.cancel_run("
    "%(run_id)s::uuid, %(actor)s::text, %(reason)s::text, %(expected_status)s::text)"
)

#: ``pgflow.pause_run``: a started run starts no new task until resumed.
PAUSE_RUN: Final[LiteralString] = (
    "select run_id, status, changed, detail from pgflow.pause_run("
    "%(run_id)s::uuid, %(actor)s::text, %(reason)s::text, %(expected_status)s::text)"
)

#: ``pgflow.resume_run``: a paused run goes on where it stood.
RESUME_RUN: Final[LiteralString] = (
    "select run_id, status, changed, detail from pgflow.resume_run("
    "%(run_id)s::uuid, %(actor)s::text, %(reason)s::text, %(expected_status)s::text)"
)

#: ``pgflow.retry_run``: a failed run is started again from its failed steps.
RETRY_RUN: Final[LiteralString] = (
    "select run_id, status, changed, detail from pgflow.retry_run("
    "%(run_id)s::uuid, %(actor)s::text, %(reason)s::text, %(expected_status)s::text)"
)

#: ``pgflow.rerun_flow``: a new run of the run's flow with the same input (the row names
#: the NEW run).
RERUN_FLOW: Final[LiteralString] = (
    "select run_id, status, changed, detail from pgflow.rerun_flow("
    "%(run_id)s::uuid, %(actor)s::text, %(reason)s::text, %(expected_status)s::text)"
)

#: ``pgflow.skip_step``: step ``step_slug`` is skipped by hand, the run moves on.
SKIP_STEP: Final[LiteralString] = (
    "select run_id, status, changed, detail from pgflow.skip_step("
    "%(run_id)s::uuid, %(step_slug)s::text, %(actor)s::text, %(reason)s::text,"
    " %(expected_status)s::text)"
)

#: ``pgflow.complete_step``: step ``step_slug`` is completed by hand with ``output`` (JSON
#: text), the run moves on.
COMPLETE_STEP: Final[LiteralString] = (
    "select run_id, status, changed, detail from pgflow.complete_step("
    "%(run_id)s::uuid, %(step_slug)s::text, %(output)s::jsonb, %(actor)s::text,"
    " %(reason)s::text, %(expected_status)s::text)"
)

#: The audit trail of a run, oldest first: rows of (id, run_id, step_slug, task_index,
#: event, actor, reason, details, created_at); none for an unknown or pruned run.
GET_RUN_EVENTS: Final[LiteralString] = (
    "select id, run_id, step_slug, task_index, event, actor, reason, details, created_at"
    " from pgflow.get_run_events(%(run_id)s::uuid)"
)

#: Tasks of a run queued again after a failed attempt, in step order: rows of (step_slug,
#: task_index, attempts_count, error_message, failed_at, next_attempt_at). failed_at is the
#: time of the task's last ``task:failed`` event; next_attempt_at adds the backoff
#: ``fail_task`` gave the message (``pgflow.calculate_retry_delay``: floor(base_delay *
#: 2^(attempts_count - attempt_offset)) s; read from the events, not the queue, so the
#: client roles need no pgmq privilege), or is NULL while the run is paused (the task waits
#: for resume_run) or when the task was requeued after that failure (due at once).
RETRYING_TASKS: Final[LiteralString] = (
    "select t.step_slug, t.task_index, t.attempts_count, t.error_message,"
    " e.created_at as failed_at,"
    " case when r.status = 'started' and not exists ("
    "   select 1 from pgflow.run_events as q"
    "   where q.run_id = t.run_id and q.step_slug = t.step_slug"
    "   and q.task_index = t.task_index and q.event = 'task:requeued' and q.id > e.id)"
    "  then e.created_at + make_interval(secs => floor("
    "   coalesce(s.opt_base_delay, f.opt_base_delay)"
    "   * power(2, t.attempts_count - t.attempt_offset)))"
    " end as next_attempt_at"
    " from pgflow.step_tasks as t"
    " join pgflow.runs as r on r.run_id = t.run_id"
    " join pgflow.flows as f on f.flow_slug = r.flow_slug"
    " join pgflow.steps as s on s.flow_slug = r.flow_slug and s.step_slug = t.step_slug"
    " left join lateral ("
    "  select ev.id, ev.created_at from pgflow.run_events as ev"
    "  where ev.run_id = t.run_id and ev.step_slug = t.step_slug"
    "  and ev.task_index = t.task_index and ev.event = 'task:failed'"
    "  order by ev.id desc limit 1) as e on true"
    " where t.run_id = %(run_id)s::uuid and t.status = 'queued' and t.attempts_count > 0"
    " and t.error_message is not null"
    " order by s.step_index, t.task_index"
)

# ---------------------------------------------------------------- signals and waits

#: ``pgflow.send_signal``: store signal ``signal_name`` for a run (a waiting step takes it
#: at once): one row (signal_id, run_id, signal_name, payload, idempotency_key, status,
#: received_at, taken_at, taken_by_step, actor, reason, duplicate), pgflow.signal_result.
#: ``payload`` is JSON text or NULL (stored as JSON null), cast by PostgreSQL as sent, so
#: its numbers are stored exactly as written.
SEND_SIGNAL: Final[LiteralString] = (
    "select signal_id, run_id, signal_name, payload, idempotency_key, status, received_at,"
    " taken_at, taken_by_step, actor, reason, duplicate from pgflow.send_signal("
    "%(run_id)s::uuid, %(signal_name)s::text, %(payload)s::jsonb, %(idempotency_key)s::text,"
    " %(actor)s::text, %(reason)s::text)"
)

#: ``pgflow.get_run_waits``: the waits of a run, one row per step that waits or waited,
#: in step order: (step_slug, kind, signal_name, waiting_since, deadline, resolved_at,
#: outcome, waited_seconds, seconds_left), the durations on the database clock.
GET_RUN_WAITS: Final[LiteralString] = (
    "select step_slug, kind, signal_name, waiting_since, deadline, resolved_at, outcome,"
    " waited_seconds, seconds_left from pgflow.get_run_waits(%(run_id)s::uuid)"
)
