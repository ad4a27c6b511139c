-- get_step_signal / get_run_waits: what a step's wait got, and what a run's steps wait for.

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

create function pgflow.get_run_waits(run_id uuid)
returns table (
  step_slug text,
  kind text,
  signal_name text,
  waiting_since timestamptz,
  deadline timestamptz,
  resolved_at timestamptz,
  outcome text,
  waited_seconds double precision,
  seconds_left double precision
)
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select ws.step_slug, w.kind, w.signal_name, ws.waiting_since, ws.deadline, ws.resolved_at, ws.outcome,
    extract(epoch from coalesce(ws.resolved_at, (select pgflow._now())) - ws.waiting_since)::double precision,
    case when ws.resolved_at is null
         then extract(epoch from ws.deadline - (select pgflow._now()))::double precision end
  from pgflow.wait_states as ws
  join pgflow.step_waits as w on w.flow_slug = ws.flow_slug and w.step_slug = ws.step_slug
  join pgflow.steps as s on s.flow_slug = ws.flow_slug and s.step_slug = ws.step_slug
  where ws.run_id = get_run_waits.run_id
  order by s.step_index;
$$;

comment on function pgflow.get_run_waits(uuid) is
'The waits of run run_id, one row per step that waits or waited (step_index order): kind
(signal or timer), signal_name, waiting_since, deadline (timeout or due time; NULL: none),
resolved_at and outcome (signal, timed_out, due, unreadable, abandoned; NULL while
waiting), waited_seconds (until resolved, or until now) and seconds_left until the
deadline (NULL once resolved or without deadline; negative when the deadline has passed
and tick has not fired it yet), on the engine''s clock (pgflow._now()). Reads only. pgflow-py extension.';
