-- Adopting an upstream pgflow 0.14.x database, the hand-written part of the packaged
-- python_worker/pgflow/sql/pgflow-adopt-upstream-0.14.sql. The database holds upstream's
-- tables (flows, steps, deps, runs, step_states, step_tasks, workers, worker_functions),
-- its type step_task_record, its functions and its runs, and no pgflow-py version.
-- extension/build.py puts after this file what upstream lacks, taken from the sources:
-- the tables of ours (installed_versions with this version's row, schedules,
-- map_task_inputs, run_events), every index (CREATE INDEX IF NOT EXISTS), the views and
-- the comments; then every function and trigger of this version (CREATE OR REPLACE) and
-- select pgflow.setup_security(). So this file holds only what cannot be taken from the
-- sources: what changes in upstream's own tables.
-- tests/integration/test_adopt_upstream.py proves that an upstream-shaped database adopted
-- this way has the catalog of a fresh install and keeps every run.

-- The engine's one time source (#16) must exist before the tables of ours whose defaults
-- call it (built after this file from the sources). A stand-in here: the functions below
-- replace it with the real one (sql/033__now.sql, which reads pgflow.test_clock, a table
-- created below too). CREATE OR REPLACE, as every statement of the adoption: a database
-- may already hold it (the upstream-shaped test fixture keeps our internal functions).
create or replace function pgflow._now()
returns timestamptz
language sql
stable
as 'select pg_catalog.now()';

-- complete_task and fail_task take a trailing optional attempt here (compat/UPSTREAM.md,
-- difference 23): upstream's 4-argument forms go, so that 4-argument calls reach ours.
drop function if exists pgflow.complete_task(uuid, text, int, jsonb);
drop function if exists pgflow.fail_task(uuid, text, int, text);

-- Our one extra check on upstream's tables (a negative requeue count was never written).
do $$
begin
  if not exists (
    select 1 from pg_catalog.pg_constraint
    where conrelid = 'pgflow.step_tasks'::regclass and conname = 'pgflow_py_requeued_count_nonnegative'
  ) then
    alter table pgflow.step_tasks
      add constraint pgflow_py_requeued_count_nonnegative check (requeued_count >= 0);
  end if;
end
$$;

-- Run control (#12): new statuses and columns in upstream's runtime tables.
-- include: sql/021_type_run_control_result.sql
-- include: changes/0.2.0-run-control.sql

-- Wait steps and signals (#13): the result type of send_signal.
-- include: sql/022_type_signal_result.sql

-- Keyed starts, concurrency limits, max_in_flight and deadlines (#14).
-- include: sql/023_type_start_flow_result.sql
-- include: changes/0.2.0-keyed-starts.sql
-- The checks of the runtime tables in their shortest form (a fifth of a run's work).
-- include: changes/0.2.0-compact-checks.sql

