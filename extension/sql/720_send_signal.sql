-- send_signal: store a signal for a run; a step waiting for it takes it at once, else it
-- stays pending until a step waits for it.

create function pgflow.send_signal(
  run_id uuid,
  signal_name text,
  payload jsonb default null,
  idempotency_key text default null,
  actor text default 'app',
  reason text default null
)
returns setof pgflow.signal_result
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_key text := case when send_signal.idempotency_key ~ '^\s*$' then null else send_signal.idempotency_key end;
  v_run pgflow.runs;
  v_signal pgflow.signals;
  v_previous text[];
begin
  -- VALIDATE, then LOCK the run (first in the lock order; every writer of the run's signals
  -- and waits holds it, so a signal and a timeout never both resolve one wait).
  perform pgflow._check_signal_name('send_signal', send_signal.signal_name);
  if length(v_key) > 255 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('send_signal: idempotency_key must be at most 255 characters (got %s)', length(v_key));
  end if;
  if pg_catalog.pg_column_size(send_signal.payload) > pgflow._max_payload_bytes() then
    perform pgflow._check_payload_size(send_signal.payload, 'Signal payload');
  end if;
  v_run := pgflow._lock_run_for_control('send_signal', send_signal.run_id, send_signal.actor, null,
                                        array['queued', 'started', 'paused', 'completed', 'failed', 'cancelled', 'expired']);
  v_previous := pgflow._set_actor(send_signal.actor, send_signal.reason);

  -- DUPLICATE: the same key for the same run returns the first signal, whatever the run's
  -- status now (a client retrying after a lost reply gets the same answer).
  if v_key is not null then
    select sg.* into v_signal
    from pgflow.signals as sg
    where sg.run_id = v_run.run_id and sg.idempotency_key = v_key;
    if found then
      perform pgflow._record_events(array['signal:duplicate'], array[v_run.run_id],
        details => array[jsonb_build_object('signal_id', v_signal.signal_id, 'signal_name',
                                            v_signal.signal_name, 'idempotency_key', v_key)]);
      perform pgflow._set_actor(v_previous[1], v_previous[2]);
      return next (v_signal.signal_id, v_signal.run_id, v_signal.signal_name, v_signal.payload,
        v_signal.idempotency_key, v_signal.status, v_signal.received_at, v_signal.taken_at,
        v_signal.taken_by_step, v_signal.actor, v_signal.reason, true)::pgflow.signal_result;
      return;
    end if;
  end if;
  if v_run.status not in ('queued', 'started', 'paused') then
    raise exception using
      errcode = 'object_not_in_prerequisite_state',
      message = format('send_signal: run %s is %s', v_run.run_id, v_run.status),
      detail = 'send_signal applies to a run that is queued, started or paused.',
      hint = 'Nothing was stored.';
  end if;

  -- STORE it pending, then let the run take it (a paused run takes it when resumed).
  insert into pgflow.signals (run_id, signal_name, payload, idempotency_key, actor, reason)
  values (v_run.run_id, send_signal.signal_name, coalesce(send_signal.payload, 'null'::jsonb), v_key,
          send_signal.actor, send_signal.reason)
  returning * into v_signal;
  perform pgflow._record_events(array['signal:received'], array[v_run.run_id],
    details => array[jsonb_strip_nulls(jsonb_build_object('signal_id', v_signal.signal_id,
      'signal_name', v_signal.signal_name, 'idempotency_key', v_key))]);
  if v_run.status = 'started' then
    perform pgflow._advance_runs(array[v_run.run_id]);
  end if;
  perform pgflow._set_actor(v_previous[1], v_previous[2]);

  return query
  select sg.signal_id, sg.run_id, sg.signal_name, sg.payload, sg.idempotency_key, sg.status,
    sg.received_at, sg.taken_at, sg.taken_by_step, sg.actor, sg.reason, false
  from pgflow.signals as sg
  where sg.signal_id = v_signal.signal_id;
end;
$$;

comment on function pgflow.send_signal(uuid, text, jsonb, text, text, text) is
'Sends signal signal_name (1 to 128 characters) with payload (jsonb; NULL is stored as JSON
null) to run run_id, and returns the stored signal (pgflow.signal_result). A step of the
run waiting for that name (and whose signal_match the payload contains) takes it at once
and goes on in this transaction (its handler''s task is queued, or it completes with the
payload); otherwise the signal stays pending and is taken, oldest first, by the next step
that waits for it. A paused run stores it; its waiting step takes it on resume_run; a
queued run stores it too, for its steps to take once it has started.
idempotency_key (at most 255 characters; blank: no key): when the run already has a signal
with that key, nothing is stored or woken and that first signal is returned with duplicate
= true (also after the run finished). actor (who sends, default app) and reason go to the
audit trail: signal:received (or signal:duplicate), then signal:taken and what follows.
Raises, writing nothing: no_data_found "send_signal: run <id> does not exist";
object_not_in_prerequisite_state (55000) "send_signal: run <id> is <status>" for a
completed, failed, cancelled or expired run; invalid_parameter_value for a bad signal name, a blank,
long or multi-line actor, or a long key; program_limit_exceeded for a payload over
pgflow.max_payload_bytes. Holds the run row lock until commit. pgflow-py extension.';
