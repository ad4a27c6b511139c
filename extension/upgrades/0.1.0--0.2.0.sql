-- pgflow 0.1.0 -> 0.2.0, the hand-written part of extension/pgflow--0.1.0--0.2.0.sql.
-- extension/build.py puts the installed_versions row before it and every function of
-- 0.2.0 (as CREATE OR REPLACE FUNCTION, from extension/sql/) after it, and ends the script
-- with select pgflow.setup_security(). So this file holds only what CREATE OR REPLACE
-- FUNCTION cannot do: new or changed tables, columns, types, indexes and views, and a DROP
-- FUNCTION for each function removed or renamed, or whose argument types, argument names,
-- defaults or return type changed (before its new version is created).
-- tests/integration/test_upgrade.py proves that 0.1.0 + the script gives the catalog of a
-- fresh 0.2.0 install and keeps every run.

-- Added (#16): the engine's one time source, pgflow._now(), and the test clock it reads
-- (first: the defaults of the tables below call it; a plpgsql body is not checked when it
-- is created, so the function may come before its table).
-- include: sql/031_tables_test_clock.sql
-- include: sql/032__test_clock_now.sql
-- include: sql/033__now.sql

-- Added: scheduled flows (pg_cron), extension/sql/055_tables_schedules.sql.
create table pgflow.schedules (
  schedule_name text primary key,
  flow_slug text not null references pgflow.flows (flow_slug),
  schedule text not null,
  input jsonb not null,
  job_id bigint,
  created_at timestamptz not null default pgflow._now(),
  updated_at timestamptz not null default pgflow._now(),
  constraint schedule_name_is_valid check (
    pgflow.is_valid_slug(schedule_name) and length(schedule_name) <= 47
  )
);

comment on table pgflow.schedules is
'One row per schedule created by pgflow.schedule_flow: its pg_cron job
(pgflow_schedule:<schedule_name>, id job_id) starts flow_slug with input on schedule (a
cron expression, or ''N seconds'' on pg_cron >= 1.5), one run per time slot.';

create index idx_schedules_flow_slug on pgflow.schedules (flow_slug);

-- Changed (#10): complete_task and fail_task gained a trailing optional attempt (the fence
-- against late reports of an older attempt); two helpers were folded into
-- _release_dependents, _complete_steps and _advance_runs.
drop function pgflow.complete_task(uuid, text, int, jsonb);
drop function pgflow.fail_task(uuid, text, int, text);
drop function pgflow._complete_step_cascade(pgflow.step_states, pgflow.steps);
drop function pgflow._release_skipped_steps(uuid, text, text[]);

-- Changed (#10): the stalled-task requeue is named after requeue_stalled_tasks.
comment on table pgflow.step_tasks is
'One row per unit of work: a single step has task 0, a map step one task per element.
status queued -> started -> completed | failed (started -> queued on retry or stalled
requeue). message_id is the pgmq message on the flow queue. attempts_count is incremented
by start_tasks; requeued_count by requeue_stalled_tasks (at most 3, then
permanently_stalled_at is stamped).';

comment on view pgflow.permanently_stalled_tasks is
'Tasks requeue_stalled_tasks gave up on after 3 requeues (their worker died each time) and
that nobody has resolved since: status still started, message archived. Alert on rows here; resolve by
failing (pgflow.fail_task) or completing the task.';

-- Changed (#10): "a step fails" and "a step is skipped" are written once, in _fail_step
-- (new arguments) and _skip_steps; _fail_run_by_condition is folded into _fail_step.
drop function pgflow._fail_step(pgflow.step_states, text);
drop function pgflow._fail_run_by_condition(uuid, text, boolean);

-- Changed (#11): constraints of upstream's tables carry upstream's names (our one extra
-- check says it is ours).
alter table pgflow.steps rename constraint slug_is_valid to steps_step_slug_check;
alter table pgflow.steps rename constraint step_type_is_valid to steps_step_type_check;
alter table pgflow.steps rename constraint deps_count_nonnegative to steps_deps_count_check;
alter table pgflow.deps rename constraint deps_dep_fkey to deps_flow_slug_dep_slug_fkey;
alter table pgflow.deps rename constraint deps_step_fkey to deps_flow_slug_step_slug_fkey;
alter table pgflow.deps rename constraint deps_not_self to deps_check;
alter table pgflow.runs rename constraint remaining_steps_valid to runs_remaining_steps_check;
alter table pgflow.step_states
  rename constraint step_states_step_fkey to step_states_flow_slug_step_slug_fkey;
alter table pgflow.step_states
  rename constraint output_only_for_completed to output_only_for_completed_or_null;
alter table pgflow.step_states
  rename constraint completed_at_or_failed_at to completed_at_or_failed_at_or_skipped_at;
alter table pgflow.step_states rename constraint remaining_deps_valid to step_states_remaining_deps_check;
alter table pgflow.step_states rename constraint initial_tasks_nonnegative to step_states_initial_tasks_check;
alter table pgflow.step_tasks
  rename constraint step_tasks_step_state_fkey to step_tasks_run_id_step_slug_fkey;
alter table pgflow.step_tasks
  rename constraint requeued_count_nonnegative to pgflow_py_requeued_count_nonnegative;

-- Added (#11): map task inputs, extension/sql/050_tables_runtime.sql (tasks queued before
-- the upgrade read their element from the array, as before).
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

-- Changed (#12): run control. New statuses and columns in the runtime tables (shared with
-- the adoption of upstream), the audit trail, and finished runs indexed with cancelled ones.
-- include: sql/021_type_run_control_result.sql
-- include: changes/0.2.0-run-control.sql
create index idx_runs_ended_at on pgflow.runs ((coalesce(completed_at, failed_at, cancelled_at)))
  where status in ('completed', 'failed', 'cancelled');
-- include: sql/056_tables_run_events.sql

-- New (#13): wait steps, signals and timers.
-- include: sql/022_type_signal_result.sql
-- include: sql/057_tables_waits.sql

-- New (#14): keyed starts, concurrency limits, max_in_flight and deadlines.
-- include: sql/023_type_start_flow_result.sql
-- include: changes/0.2.0-keyed-starts.sql
-- The checks of the runtime tables in their shortest form (a fifth of a run's work).
-- include: changes/0.2.0-compact-checks.sql
create index idx_runs_ended_at on pgflow.runs ((coalesce(completed_at, failed_at, cancelled_at, expired_at)))
  where status in ('completed', 'failed', 'cancelled', 'expired');
create unique index idx_runs_idempotency_key on pgflow.runs (flow_slug, idempotency_key)
  where idempotency_key is not null;
create index idx_runs_concurrency_key on pgflow.runs (flow_slug, concurrency_key, status, queue_seq)
  where concurrency_key is not null and status in ('queued', 'started', 'paused');
create index idx_runs_deadline on pgflow.runs (deadline)
  where deadline is not null and status in ('queued', 'started', 'paused');
create index idx_steps_max_in_flight on pgflow.steps (flow_slug, step_slug)
  where opt_max_in_flight is not null;
-- include: sql/058_tables_throttled_messages.sql

-- New (#15): the runs of a flow, newest first (the dashboard's runs list), and the run and
-- step stats of the flow pages.
create index idx_runs_flow_started_at on pgflow.runs (flow_slug, started_at, run_id);
-- include: sql/059_tables_stats.sql
