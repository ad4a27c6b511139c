-- Wait steps and signals (pgflow-py extension): what a step waits for (step_waits, a
-- definition), each wait of a run (wait_states) and the signals sent to runs (signals).

create table pgflow.step_waits (
  flow_slug text not null,
  step_slug text not null,
  kind text not null,
  signal_name text,
  signal_match jsonb,
  timeout_seconds int,
  on_timeout text not null default 'fail',
  runs_handler boolean not null default false,
  sleep_seconds int,
  sleep_until text,
  created_at timestamptz not null default pgflow._now(),
  constraint step_waits_pkey primary key (flow_slug, step_slug),
  constraint step_waits_step_fkey foreign key (flow_slug, step_slug)
    references pgflow.steps (flow_slug, step_slug),
  constraint step_waits_kind_is_valid check (kind in ('signal', 'timer')),
  constraint step_waits_signal_has_name check ((kind = 'signal') = (signal_name is not null)),
  constraint step_waits_match_is_object check (
    signal_match is null or (kind = 'signal' and jsonb_typeof(signal_match) = 'object')
  ),
  constraint step_waits_timeout_is_positive check (
    timeout_seconds is null or (kind = 'signal' and timeout_seconds > 0)
  ),
  constraint step_waits_on_timeout_is_valid check (
    on_timeout in ('fail', 'skip', 'skip-cascade', 'continue')
  ),
  constraint step_waits_timer_has_no_handler check (kind = 'signal' or not runs_handler),
  constraint step_waits_timer_has_one_time check (
    (kind = 'timer') = ((sleep_seconds is not null) <> (sleep_until is not null))
  ),
  constraint step_waits_sleep_seconds_nonnegative check (sleep_seconds is null or sleep_seconds >= 0)
);

comment on table pgflow.step_waits is
'pgflow-py extension: the steps that wait before they run, one row per such step (add_wait,
add_timer). kind signal: the step waits for a signal named signal_name whose payload
contains signal_match (jsonb object, NULL: any payload), at most timeout_seconds (NULL: no
limit) from when it starts waiting, then on_timeout (fail: the step fails and its
when_exhausted applies; skip / skip-cascade: as an unmet condition; continue: the step goes
on without a signal). runs_handler: the step has a handler, which runs once the wait
resolves (a task is queued); else the step completes with the signal''s payload (NULL after
a timeout). kind timer: the step completes, with no handler and no task, sleep_seconds
seconds after it starts waiting or at the timestamp read at sleep_until (input.<key>... in
the run input, <dep_slug>.<key>... in a dependency''s output).';

create table pgflow.signals (
  signal_id bigint generated always as identity,
  run_id uuid not null,
  signal_name text not null,
  payload jsonb not null,
  idempotency_key text,
  status text not null default 'pending',
  received_at timestamptz not null default pgflow._now(),
  taken_at timestamptz,
  taken_by_step text,
  actor text not null,
  reason text,
  constraint signals_pkey primary key (signal_id),
  -- One signal per key and run (NULL keys are distinct: no key, no deduplication).
  constraint signals_run_id_idempotency_key_key unique (run_id, idempotency_key),
  constraint signals_status_is_valid check (status in ('pending', 'taken')),
  constraint signals_taken_has_step check (
    (status = 'taken') = (taken_by_step is not null and taken_at is not null)
  ),
  constraint signals_idempotency_key_is_not_blank check (
    idempotency_key is null or idempotency_key !~ '^\s*$'
  )
);

comment on table pgflow.signals is
'pgflow-py extension: the signals sent to runs (send_signal), one row each, kept after they
are taken. status pending (stored, no step took it yet: sent before its step waits, to a
paused run, or after the wait timed out) -> taken (by step taken_by_step at taken_at).
payload: the jsonb sent, JSON null when none was. idempotency_key: a second send with the
same key for the same run stores nothing. actor and reason: who sent it and why. No foreign
key (it would cost every update of a run a trigger check): deleted with its run
(prune_data_older_than, delete_flow_and_data).';

create index idx_signals_pending on pgflow.signals (run_id, signal_name, signal_id)
  where status = 'pending';

create table pgflow.wait_states (
  run_id uuid not null,
  step_slug text not null,
  flow_slug text not null,
  waiting_since timestamptz not null default pgflow._now(),
  deadline timestamptz,
  resolved_at timestamptz,
  outcome text,
  signal_id bigint,
  error_message text,
  constraint wait_states_pkey primary key (run_id, step_slug),
  constraint wait_states_outcome_is_valid check (
    outcome in ('signal', 'timed_out', 'due', 'unreadable', 'abandoned')
  ),
  constraint wait_states_resolved_has_outcome check ((resolved_at is null) = (outcome is null)),
  constraint wait_states_signal_outcome_has_signal check ((outcome = 'signal') = (signal_id is not null))
);

comment on table pgflow.wait_states is
'pgflow-py extension: the wait of each waiting step of a run (status waiting in
step_states), kept once resolved. waiting_since: when the step started waiting; deadline:
when a signal wait times out, or when a timer is due (NULL: no timeout); resolved_at and
outcome: signal (signal_id taken), timed_out, due (a timer fired) or unreadable (a timer
whose timestamp could not be read; error_message says why) or abandoned (the step stopped
waiting another way: its run ended, an operator skipped it). A step that waits again (its
failed run retried) starts a fresh wait in the same row. tick() fires the waits whose
deadline has passed. No foreign key (it would cost every update of a step state a trigger
check): deleted with its run (prune_data_older_than, delete_flow_and_data).';

create index idx_wait_states_deadline on pgflow.wait_states (deadline)
  where resolved_at is null and deadline is not null;
