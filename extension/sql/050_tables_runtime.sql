-- Runtime state: runs, step_states, step_tasks, and the worker registry.
-- Column order is the physical order of upstream pgflow 0.14.1 after its migrations, so
-- SETOF results and select * match (compat/UPSTREAM.md).

create table pgflow.workers (
  worker_id uuid primary key,
  queue_name text not null,
  function_name text not null,
  started_at timestamptz not null default now(),
  deprecated_at timestamptz,
  last_heartbeat_at timestamptz not null default now(),
  stopped_at timestamptz
);

comment on table pgflow.workers is
'Worker registry. worker_id is chosen by the worker, fresh per process boot. deprecated_at:
the worker must stop reading (set by operators or on stop); stopped_at: the worker signalled
a graceful shutdown (mark_worker_stopped). last_heartbeat_at refreshed every few seconds.
Stall detection never relies on this table.';

create index idx_workers_queue_name on pgflow.workers (queue_name);
create index idx_workers_heartbeat on pgflow.workers (last_heartbeat_at);

create table pgflow.worker_functions (
  function_name text primary key,
  enabled boolean not null default true,
  debounce interval not null default '6 seconds',
  last_invoked_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint worker_functions_debounce_check check (debounce >= interval '1 second')
);

comment on table pgflow.worker_functions is
'Worker functions (deployments) seen by pgflow, upserted by track_worker_function at worker
start. enabled and debounce drive upstream''s Edge Function keep-alive (not used by the
Python worker).';

create table pgflow.runs (
  run_id uuid primary key default gen_random_uuid(),
  flow_slug text not null references pgflow.flows (flow_slug),
  status text not null default 'started',
  input jsonb not null,
  output jsonb,
  remaining_steps int not null default 0,
  started_at timestamptz not null default now(),
  completed_at timestamptz,
  failed_at timestamptz,
  cancelled_at timestamptz,
  paused_at timestamptz,
  rerun_of uuid,
  idempotency_key text,
  concurrency_key text,
  deadline timestamptz,
  queued_at timestamptz,
  queue_seq bigint,
  expired_at timestamptz,
  -- (The checks of runs, step_states and step_tasks are written in their shortest form:
  -- PostgreSQL reads every check of a table back from its stored form at each statement
  -- that writes the table, a fifth of the engine's work per run. A list of values is one
  -- array constant, and "x is null or x >= y" is "not (x < y)", which a NULL passes alike.)
  constraint status_is_valid
    check (status = any('{started,failed,completed,cancelled,paused,queued,expired}'::text[])),
  constraint runs_remaining_steps_check check (remaining_steps >= 0),
  constraint completed_at_or_failed_at check (not (completed_at is not null and failed_at is not null)),
  constraint completed_at_is_after_started_at check (not (completed_at < started_at)),
  constraint failed_at_is_after_started_at check (not (failed_at < started_at))
);

comment on table pgflow.runs is
'One row per run (one execution of a flow with a jsonb input). status started -> completed
| failed | cancelled, started <-> paused (pause_run / resume_run), failed -> started
(retry_run), queued -> started (a concurrency slot freed) | cancelled | expired, started
| paused -> expired (its deadline passed). remaining_steps counts steps not yet completed
or skipped. output is the object of completed leaf-step outputs, set at completion.
pgflow-py columns: cancelled_at (cancel_run), paused_at (set while paused), rerun_of (the
run this one reruns, rerun_flow), idempotency_key (start_flow: one run per flow and key),
concurrency_key (start_flow: runs of a flow with the same key share the flow''s
concurrency_limit), deadline (when the run expires if it has not finished: start_flow''s
deadline, else now + the flow''s run_timeout), queued_at and queue_seq (set when the run was
created queued: since when, and its place in the start order), expired_at (the tick
expired it).';

create index idx_runs_flow_slug on pgflow.runs (flow_slug);
create index idx_runs_status on pgflow.runs (status);
create index idx_runs_ended_at on pgflow.runs ((coalesce(completed_at, failed_at, cancelled_at, expired_at)))
  where status in ('completed', 'failed', 'cancelled', 'expired');
-- pgflow-py: one run per flow and idempotency key (start_flow finds the existing one here).
create unique index idx_runs_idempotency_key on pgflow.runs (flow_slug, idempotency_key)
  where idempotency_key is not null;
-- pgflow-py: the unfinished runs of a concurrency key by status (the slots held; the queue
-- in start order).
create index idx_runs_concurrency_key on pgflow.runs (flow_slug, concurrency_key, status, queue_seq)
  where concurrency_key is not null and status in ('queued', 'started', 'paused');
-- pgflow-py: unfinished runs with a deadline (the tick expires them).
create index idx_runs_deadline on pgflow.runs (deadline)
  where deadline is not null and status in ('queued', 'started', 'paused');
-- pgflow-py: the runs of a flow, newest first (the dashboard's runs list reads each flow's
-- newest runs through it and merges them, so one index serves the list with and without a
-- flow filter).
create index idx_runs_flow_started_at on pgflow.runs (flow_slug, started_at, run_id);

-- pgflow-py: the start order of queued runs (runs.queue_seq), drawn only for a run created
-- queued.
create sequence pgflow.runs_queue_seq;

create table pgflow.step_states (
  flow_slug text not null references pgflow.flows (flow_slug),
  run_id uuid not null references pgflow.runs (run_id),
  step_slug text not null,
  status text not null default 'created',
  remaining_tasks int,
  remaining_deps int not null default 0,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  completed_at timestamptz,
  failed_at timestamptz,
  error_message text,
  initial_tasks int,
  output jsonb,
  skip_reason text,
  skipped_at timestamptz,
  cancelled_at timestamptz,
  constraint step_states_pkey primary key (run_id, step_slug),
  constraint step_states_flow_slug_step_slug_fkey foreign key (flow_slug, step_slug)
    references pgflow.steps (flow_slug, step_slug),
  constraint status_is_valid
    check (status = any('{created,started,completed,failed,skipped,cancelled,waiting}'::text[])),
  constraint status_and_remaining_tasks_match check (status <> 'completed' or remaining_tasks = 0),
  constraint remaining_tasks_state_consistency check (
    remaining_tasks is null or status <> all('{created,skipped}'::text[])
  ),
  constraint initial_tasks_known_when_started check (status <> 'started' or initial_tasks is not null),
  constraint output_only_for_completed_or_null check (output is null or status = 'completed'),
  constraint skip_reason_matches_status check ((status = 'skipped') = (skip_reason is not null)),
  constraint completed_at_or_failed_at_or_skipped_at check (
    num_nonnulls(completed_at, failed_at, skipped_at) <= 1
  ),
  constraint step_states_remaining_deps_check check (remaining_deps >= 0),
  constraint step_states_initial_tasks_check check (not (initial_tasks < 0)),
  constraint started_at_is_after_created_at check (not (started_at < created_at)),
  constraint completed_at_is_after_started_at check (not (completed_at < started_at)),
  constraint failed_at_is_after_started_at check (not (failed_at < started_at)),
  constraint skipped_at_is_after_created_at check (not (skipped_at < created_at))
);

comment on table pgflow.step_states is
'One row per step per run. status created -> started -> completed | failed | skipped (also
created -> completed for taskless maps, created -> skipped / failed by conditions); an
unfinished step of a run that ends (failed, cancelled) becomes cancelled (cancelled_at,
pgflow-py).
remaining_deps counts unfinished parents; initial_tasks is the task count (NULL until known
for dependent maps); remaining_tasks counts unfinished tasks (NULL until started); output is
the step output (map: array of task outputs by task_index), written at completion.';

create index idx_step_states_ready on pgflow.step_states (run_id, status, remaining_deps)
  where status = 'created' and remaining_deps = 0;
create index idx_step_states_failed on pgflow.step_states (run_id, step_slug)
  where status = 'failed';
create index idx_step_states_skipped on pgflow.step_states (run_id, step_slug)
  where status = 'skipped';
create index idx_step_states_flow_slug on pgflow.step_states (flow_slug);
create index idx_step_states_run_id on pgflow.step_states (run_id);

create table pgflow.step_tasks (
  flow_slug text not null references pgflow.flows (flow_slug),
  run_id uuid not null references pgflow.runs (run_id),
  step_slug text not null,
  message_id bigint,
  task_index int not null default 0,
  status text not null default 'queued',
  attempts_count int not null default 0,
  error_message text,
  output jsonb,
  queued_at timestamptz not null default now(),
  completed_at timestamptz,
  failed_at timestamptz,
  started_at timestamptz,
  last_worker_id uuid references pgflow.workers (worker_id) on delete set null,
  requeued_count int not null default 0,
  last_requeued_at timestamptz,
  permanently_stalled_at timestamptz,
  cancelled_at timestamptz,
  attempt_offset int not null default 0,
  constraint step_tasks_pkey primary key (run_id, step_slug, task_index),
  constraint step_tasks_run_id_step_slug_fkey foreign key (run_id, step_slug)
    references pgflow.step_states (run_id, step_slug),
  constraint valid_status check (status = any('{queued,started,completed,failed,cancelled}'::text[])),
  constraint output_valid_only_for_completed check (
    output is null or status = any('{completed,failed}'::text[])
  ),
  constraint attempts_count_nonnegative check (attempts_count >= 0),
  constraint pgflow_py_requeued_count_nonnegative check (requeued_count >= 0),
  constraint completed_at_or_failed_at check (not (completed_at is not null and failed_at is not null)),
  constraint completed_at_is_after_queued_at check (not (completed_at < queued_at)),
  constraint failed_at_is_after_queued_at check (not (failed_at < queued_at)),
  constraint started_at_is_after_queued_at check (not (started_at < queued_at)),
  constraint completed_at_is_after_started_at check (not (completed_at < started_at)),
  constraint failed_at_is_after_started_at check (not (failed_at < started_at))
);

comment on table pgflow.step_tasks is
'One row per unit of work: a single step has task 0, a map step one task per element.
status queued -> started -> completed | failed (started -> queued on retry or stalled
requeue); a queued or started task of a run that ends becomes cancelled (cancelled_at,
pgflow-py) and loses its message. attempt_offset (pgflow-py): attempts made before its run
was retried (retry_run); the retry budget is max_attempts attempts after it. message_id is the pgmq message on the flow queue. attempts_count is incremented
by start_tasks; requeued_count by requeue_stalled_tasks (at most 3, then
permanently_stalled_at is stamped).';

create index idx_step_tasks_message_id on pgflow.step_tasks (message_id);
create index idx_step_tasks_queued on pgflow.step_tasks (run_id, step_slug) where status = 'queued';
create index idx_step_tasks_completed on pgflow.step_tasks (run_id, step_slug) where status = 'completed';
create index idx_step_tasks_failed on pgflow.step_tasks (run_id, step_slug) where status = 'failed';
create index idx_step_tasks_flow_run_step on pgflow.step_tasks (flow_slug, run_id, step_slug);
create index idx_step_tasks_started_at on pgflow.step_tasks (started_at) where status = 'started';
create index idx_step_tasks_queued_msg on pgflow.step_tasks (message_id) where status = 'queued';
create index idx_step_tasks_last_worker on pgflow.step_tasks (last_worker_id) where status = 'started';

-- pgflow-py: the inputs of map tasks, written once when their step starts, in chunks of about
-- 16 kB, so that a claim reads one small value instead of detoasting the whole array (run
-- input or parent output).
create table pgflow.map_task_inputs (
  run_id uuid not null,
  step_slug text not null,
  first_index int not null,
  inputs jsonb not null,
  constraint map_task_inputs_pkey primary key (run_id, step_slug, first_index)
);

comment on table pgflow.map_task_inputs is
'pgflow-py extension: the inputs of the tasks of a map step (the elements of the run input
for a root map, of the parent step''s output for a dependent map), cut into chunks of
consecutive elements of about 16 kB: inputs holds the inputs of tasks first_index,
first_index + 1, ... (an element over 16 kB has a chunk of its own). Written by
_queue_step_tasks when the step starts, read by start_tasks / read_and_start_tasks (one
index probe and one small value per task), so a claim costs the same whatever the
array''s size. Deleted with its run (prune_data_older_than, delete_flow_and_data). A map
task without a chunk here (queued before 0.2.0) gets its element from the array as before.';
