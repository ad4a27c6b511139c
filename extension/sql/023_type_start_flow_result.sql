-- start_flow_result: what start_flow returns: the run as stored, and whether the call was a
-- duplicate of an earlier keyed start.

create type pgflow.start_flow_result as (
  run_id uuid,
  flow_slug text,
  status text,
  input jsonb,
  output jsonb,
  remaining_steps int,
  started_at timestamptz,
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
  duplicate boolean
);

comment on type pgflow.start_flow_result is
'A row of start_flow: the columns of pgflow.runs in their order (upstream''s first, so
select * from start_flow(...) reads as upstream''s), then duplicate: true when the call
found the run an earlier start with the same flow and idempotency_key created (nothing was
written), false when this call created it. pgflow-py extension; sql_tests check that its
leading fields are exactly those of pgflow.runs.';
