-- get_run_waits: what a run's steps wait for.

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
