-- Keyed starts, concurrency limits, max_in_flight and deadlines (#14): what changes in
-- upstream's tables, for an upgrade from 0.1.0 and for the adoption of an upstream database
-- alike (both include this file). Written to run once on tables in either shape.

-- Runs: the keys and the deadline a start gives, the queued and expired statuses.
alter table pgflow.runs
  add column idempotency_key text,
  add column concurrency_key text,
  add column deadline timestamptz,
  add column queued_at timestamptz,
  add column queue_seq bigint,
  add column expired_at timestamptz,
  drop constraint status_is_valid,
  add constraint status_is_valid
    check (status in ('started', 'failed', 'completed', 'cancelled', 'paused', 'queued', 'expired'));
create sequence pgflow.runs_queue_seq;

-- Flow options concurrency_limit, on_limit, run_timeout; step option max_in_flight.
alter table pgflow.flows
  add column opt_concurrency_limit int,
  add column opt_on_limit text not null default 'queue',
  add column opt_run_timeout int,
  add constraint pgflow_py_concurrency_limit_is_positive
    check (opt_concurrency_limit is null or opt_concurrency_limit > 0),
  add constraint pgflow_py_on_limit_is_valid check (opt_on_limit in ('queue', 'reject')),
  add constraint pgflow_py_run_timeout_is_positive check (opt_run_timeout is null or opt_run_timeout > 0);
alter table pgflow.steps
  add column opt_max_in_flight int,
  add constraint pgflow_py_max_in_flight_is_positive
    check (opt_max_in_flight is null or opt_max_in_flight > 0);

-- Finished runs now include expired ones (prune_data_older_than finds them here); the
-- index is created again from the sources.
drop index if exists pgflow.idx_runs_ended_at;

-- start_flow, create_flow and add_step take trailing optional arguments: the forms without
-- them go, so that calls with upstream's arguments reach the new ones.
drop function if exists pgflow.start_flow(text, jsonb, uuid);
drop function if exists pgflow.create_flow(text, int, int, int);
drop function if exists pgflow.add_step(text, text, text[], int, int, int, int, text, jsonb, jsonb, text, text);
