-- The result of send_signal: the stored signal and whether this call was a duplicate.
-- pgflow-py extension.

create type pgflow.signal_result as (
  signal_id bigint,
  run_id uuid,
  signal_name text,
  payload jsonb,
  idempotency_key text,
  status text,
  received_at timestamptz,
  taken_at timestamptz,
  taken_by_step text,
  actor text,
  reason text,
  duplicate boolean
);

comment on type pgflow.signal_result is
'What send_signal stored: the signals row as it is after the call (status taken when a
waiting step took it at once, with taken_by_step and taken_at; pending otherwise) and
duplicate: true when a signal with the same idempotency_key was already stored for the run
(this row is that first signal; nothing new was stored).';
