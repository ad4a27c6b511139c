-- get_step_signal: what a step's wait got (the signal, or its timeout).

create function pgflow.get_step_signal(run_id uuid, step_slug text)
returns table (
  signal_id bigint,
  signal_name text,
  payload jsonb,
  received_at timestamptz,
  timed_out boolean
)
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select sg.signal_id, coalesce(sg.signal_name, w.signal_name), sg.payload, sg.received_at,
    ws.outcome = 'timed_out'
  from pgflow.wait_states as ws
  join pgflow.step_waits as w on w.flow_slug = ws.flow_slug and w.step_slug = ws.step_slug
  left join pgflow.signals as sg on sg.signal_id = ws.signal_id
  where ws.run_id = get_step_signal.run_id
    and ws.step_slug = get_step_signal.step_slug
    and w.kind = 'signal'
    and ws.outcome in ('signal', 'timed_out');
$$;

comment on function pgflow.get_step_signal(uuid, text) is
'The signal that ended the wait of step step_slug of run run_id, for its handler: one row
(signal_id, signal_name, payload, received_at, timed_out false) when it took a signal (a
payload sent as JSON null or without payload is JSON null), or (NULL, the awaited name, NULL,
NULL, timed_out true) when the wait timed out with on_timeout continue; no row when the step
does not wait for a signal or its wait has not ended. Reads only. pgflow-py extension.';
