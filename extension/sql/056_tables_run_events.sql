-- The audit trail of runs: one row per change of a run or step status, per failed or
-- requeued task attempt, and per run-control verb. pgflow-py extension.

create table pgflow.run_events (
  id bigint generated always as identity,
  run_id uuid not null,
  step_slug text,
  task_index int,
  event text not null,  -- noqa: RF04
  actor text not null,
  reason text,
  details jsonb,
  created_at timestamptz not null default pgflow._now(),
  -- The events of a run, in order (get_run_events); id alone is unique too (an identity).
  constraint run_events_pkey primary key (run_id, id)
);

comment on table pgflow.run_events is
'Audit trail of runs, append-only, written in the transaction of the change it records (by
the transition that makes it, through _record_events). event: run:started | run:completed | run:failed | run:cancelled | run:paused |
run:resumed | run:retried | run:rerun, step:started | step:completed | step:failed |
step:skipped | step:cancelled | step:reset, task:failed (an attempt failed; details.retry
says whether it will be retried, details.traceback holds the handler''s traceback when the
worker sent one), task:requeued and task:permanently_stalled (the stalled-task
requeue). actor: who caused it (worker:<worker_id> for the worker''s reports, system for
maintenance, the name given to a verb, app for start_flow and the root steps it creates
started, unless the caller set pgflow.actor; root steps that start_flow leaves to the cascade
(a flow with conditions, an empty root map, realtime on) are started by system). reason: the reason given to a verb. details: what else the event carries
(errors, attempt numbers, the new run of a rerun). No foreign key: the rows of a run are
deleted with it by prune_data_older_than and delete_flow_and_data. Read with
pgflow.get_run_events(run_id).';

-- Recent events: the primary key orders them (id grows with time); a time range is served by
-- a BRIN index, which costs an insert next to nothing.
create index idx_run_events_created_at on pgflow.run_events using brin (created_at);
