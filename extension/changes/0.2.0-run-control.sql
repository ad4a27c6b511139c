-- Run control (#12) and wait steps (#13): what changes in upstream's runtime tables, for an
-- upgrade from 0.1.0 and for the adoption of an upstream database alike (both include this file; the build
-- puts it in their place). Written to run once on tables in either shape.

-- New statuses: runs cancelled and paused, steps cancelled and waiting, tasks cancelled.
alter table pgflow.runs
  add column cancelled_at timestamptz,
  add column paused_at timestamptz,
  add column rerun_of uuid,
  drop constraint status_is_valid,
  add constraint status_is_valid
    check (status in ('started', 'failed', 'completed', 'cancelled', 'paused'));

alter table pgflow.step_states
  add column cancelled_at timestamptz,
  drop constraint status_is_valid,
  add constraint status_is_valid
    check (status in ('created', 'started', 'completed', 'failed', 'skipped', 'cancelled', 'waiting'));

alter table pgflow.step_tasks
  add column cancelled_at timestamptz,
  add column attempt_offset int not null default 0,
  drop constraint valid_status,
  add constraint valid_status
    check (status in ('queued', 'started', 'completed', 'failed', 'cancelled'));

-- Finished runs now include cancelled ones (prune_data_older_than finds them here).
drop index if exists pgflow.idx_runs_ended_at;
