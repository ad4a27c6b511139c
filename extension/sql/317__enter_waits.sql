-- _enter_waits: ready steps that wait (step_waits) start waiting instead of starting (the
-- one implementation of "a step starts waiting").

create function pgflow._enter_waits(run_id uuid)
returns int
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_slugs text[];
  v_details jsonb[];
  v_kept text[];
begin
  -- MUTATE: created steps with no pending dependency that have a wait become waiting (their
  -- condition, if any, was met: _cascade evaluates conditions first), and their wait starts
  -- now: a fresh wait_states row (a step waiting again after retry_run reuses its row). A
  -- signal wait's deadline is its timeout; a timer's is its due time (computed later by
  -- _resolve_waits when read from the input or a dependency). A step with a handler whose
  -- wait had ended with a signal (or a timeout with on_timeout continue) before the step
  -- failed or was cancelled (its run retried) keeps that outcome: it does not wait again,
  -- its handler runs again with the same signal (below).
  with entering as (
    update pgflow.step_states as ss
    set status = 'waiting'
    from pgflow.step_waits as w, pgflow.runs as r
    where ss.run_id = _enter_waits.run_id
      and r.run_id = ss.run_id
      and r.status is not distinct from 'started'
      and ss.status = 'created'
      and ss.remaining_deps = 0
      and w.flow_slug = ss.flow_slug
      and w.step_slug = ss.step_slug
    returning ss.run_id, ss.flow_slug, ss.step_slug, w.kind, w.signal_name, w.timeout_seconds,
      w.sleep_seconds, w.sleep_until,
      w.runs_handler and exists (
        select 1 from pgflow.wait_states as old
        where old.run_id = ss.run_id and old.step_slug = ss.step_slug
          and (old.outcome = 'signal' or (old.outcome = 'timed_out' and w.on_timeout = 'continue'))
      ) as kept
  ),
  waits as (
    insert into pgflow.wait_states as ws (run_id, step_slug, flow_slug, waiting_since, deadline)
    select e.run_id, e.step_slug, e.flow_slug, v_now,
      v_now + make_interval(secs => coalesce(e.timeout_seconds, e.sleep_seconds))
    from entering as e
    where not e.kept
    on conflict on constraint wait_states_pkey do update
    set waiting_since = excluded.waiting_since,
        deadline = excluded.deadline,
        resolved_at = null,
        outcome = null,
        signal_id = null,
        error_message = null
    returning ws.step_slug, ws.deadline
  )
  select array_agg(e.step_slug order by s.step_index) filter (where not e.kept),
         array_agg(jsonb_strip_nulls(jsonb_build_object(
           'signal_name', e.signal_name, 'deadline', wt.deadline, 'until_path', e.sleep_until))
           order by s.step_index) filter (where not e.kept),
         array_agg(e.step_slug order by s.step_index) filter (where e.kept)
  into v_slugs, v_details, v_kept
  from entering as e
  left join waits as wt on wt.step_slug = e.step_slug
  join pgflow.steps as s on s.flow_slug = e.flow_slug and s.step_slug = e.step_slug;
  if v_slugs is not null then
    perform pgflow._record_events(array['step:waiting'],
      array_fill(_enter_waits.run_id, array[cardinality(v_slugs)]), v_slugs, details => v_details);
  end if;
  if v_kept is not null then
    perform pgflow._finish_waits(_enter_waits.run_id, v_kept);
  end if;
  return coalesce(cardinality(v_slugs), 0) + coalesce(cardinality(v_kept), 0);
end;
$$;

comment on function pgflow._enter_waits(uuid) is
'In run run_id (when started), every step that is created, has no pending dependency and
has a wait (step_waits) becomes waiting: no task, no message. Its wait_states row is
(re)started: waiting_since the engine''s time (pgflow._now()), deadline that +
timeout_seconds (a signal wait; NULL: no limit) or + sleep_seconds (a timer; NULL for a
timer read at sleep_until, which _resolve_waits computes), unresolved. Records step:waiting
per step (details: signal_name, deadline, until_path). A step with a handler whose previous
wait ended with a signal, or timed out with on_timeout continue, before it failed or was
cancelled (its run then retried) does not wait again: _finish_waits starts it at once and
its handler gets the same signal (get_step_signal). Returns the number of steps that started
waiting or were started so; a repeated call finds none. Conditions are evaluated before
(_cascade). The caller holds the run row. pgflow-py internal.';
