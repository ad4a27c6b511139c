-- The checks of runs, step_states and step_tasks in their shortest form (sql/050_tables_runtime.sql
-- says why): same names, same rows accepted and refused. For an upgrade from 0.1.0 and for
-- the adoption of an upstream database alike (both include this file, after the other
-- changes of 0.2.0). Each table is read once to validate its new checks.

alter table pgflow.runs
  drop constraint status_is_valid,
  add constraint status_is_valid
    check (status = any('{started,failed,completed,cancelled,paused,queued,expired}'::text[])),
  drop constraint completed_at_is_after_started_at,
  add constraint completed_at_is_after_started_at check (not (completed_at < started_at)),
  drop constraint failed_at_is_after_started_at,
  add constraint failed_at_is_after_started_at check (not (failed_at < started_at));

alter table pgflow.step_states
  drop constraint status_is_valid,
  add constraint status_is_valid
    check (status = any('{created,started,completed,failed,skipped,cancelled,waiting}'::text[])),
  drop constraint remaining_tasks_state_consistency,
  add constraint remaining_tasks_state_consistency check (
    remaining_tasks is null or status <> all('{created,skipped}'::text[])
  ),
  drop constraint completed_at_or_failed_at_or_skipped_at,
  add constraint completed_at_or_failed_at_or_skipped_at check (
    num_nonnulls(completed_at, failed_at, skipped_at) <= 1
  ),
  drop constraint step_states_initial_tasks_check,
  add constraint step_states_initial_tasks_check check (not (initial_tasks < 0)),
  drop constraint started_at_is_after_created_at,
  add constraint started_at_is_after_created_at check (not (started_at < created_at)),
  drop constraint completed_at_is_after_started_at,
  add constraint completed_at_is_after_started_at check (not (completed_at < started_at)),
  drop constraint failed_at_is_after_started_at,
  add constraint failed_at_is_after_started_at check (not (failed_at < started_at)),
  drop constraint skipped_at_is_after_created_at,
  add constraint skipped_at_is_after_created_at check (not (skipped_at < created_at));

alter table pgflow.step_tasks
  drop constraint valid_status,
  add constraint valid_status check (status = any('{queued,started,completed,failed,cancelled}'::text[])),
  drop constraint output_valid_only_for_completed,
  add constraint output_valid_only_for_completed check (
    output is null or status = any('{completed,failed}'::text[])
  ),
  drop constraint completed_at_is_after_queued_at,
  add constraint completed_at_is_after_queued_at check (not (completed_at < queued_at)),
  drop constraint failed_at_is_after_queued_at,
  add constraint failed_at_is_after_queued_at check (not (failed_at < queued_at)),
  drop constraint started_at_is_after_queued_at,
  add constraint started_at_is_after_queued_at check (not (started_at < queued_at)),
  drop constraint completed_at_is_after_started_at,
  add constraint completed_at_is_after_started_at check (not (completed_at < started_at)),
  drop constraint failed_at_is_after_started_at,
  add constraint failed_at_is_after_started_at check (not (failed_at < started_at));
