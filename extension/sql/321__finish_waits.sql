-- _finish_waits: steps whose wait just ended move on: a step with a handler starts, one
-- without completes with what the wait got, a timed-out one fails or is skipped.

create function pgflow._finish_waits(run_id uuid, step_slugs text[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_fail record;
  v_woken_runs uuid[];
  v_woken text[];
  v_done text[];
  v_skip text[];
  v_cascade text[];
  v_outputs jsonb[];
  v_bad record;
  v_flow_slug text := (select r.flow_slug from pgflow.runs as r where r.run_id = _finish_waits.run_id);
begin
  -- FAIL first: a wait that timed out with on_timeout fail, or a timer that could not be
  -- read, fails its step; when_exhausted decides as for a task out of attempts. The first
  -- one in fail mode fails the run, and nothing else matters then.
  for v_fail in
    select ws.step_slug, s.when_exhausted,
      case when ws.outcome = 'unreadable' then ws.error_message
           else format('Wait for signal %L timed out after %s seconds', w.signal_name, w.timeout_seconds)
      end as error_message
    from unnest(_finish_waits.step_slugs) as k (step_slug)
    join pgflow.wait_states as ws on ws.run_id = _finish_waits.run_id and ws.step_slug = k.step_slug
    join pgflow.step_waits as w on w.flow_slug = ws.flow_slug and w.step_slug = ws.step_slug
    join pgflow.steps as s on s.flow_slug = ws.flow_slug and s.step_slug = ws.step_slug
    join pgflow.step_states as ss on ss.run_id = ws.run_id and ss.step_slug = ws.step_slug
    where (ws.outcome = 'unreadable' or (ws.outcome = 'timed_out' and w.on_timeout = 'fail'))
      and ss.status = 'waiting'  -- (a step failed or skipped by an earlier call is left alone)
    order by s.step_index
  loop
    if v_fail.when_exhausted = 'fail' then
      perform pgflow._fail_step(_finish_waits.run_id, v_fail.step_slug, v_fail.error_message,
                                v_fail.error_message);
      return;
    end if;
    perform pgflow._skip_exhausted_step(_finish_waits.run_id, v_fail.step_slug, v_fail.when_exhausted,
                                        'timed_out', v_fail.error_message);
  end loop;

  -- The other outcomes, by what the step does next (steps still waiting only).
  select
    array_agg(ws.step_slug) filter (
      where w.runs_handler and (ws.outcome = 'signal' or w.on_timeout = 'continue')),
    array_agg(ws.step_slug) filter (
      where not w.runs_handler and (ws.outcome in ('signal', 'due') or w.on_timeout = 'continue')),
    array_agg(ws.step_slug) filter (where ws.outcome = 'timed_out' and w.on_timeout = 'skip'),
    array_agg(ws.step_slug) filter (where ws.outcome = 'timed_out' and w.on_timeout = 'skip-cascade')
  into v_woken, v_done, v_skip, v_cascade
  from unnest(_finish_waits.step_slugs) as k (step_slug)
  join pgflow.wait_states as ws on ws.run_id = _finish_waits.run_id and ws.step_slug = k.step_slug
  join pgflow.step_waits as w on w.flow_slug = ws.flow_slug and w.step_slug = ws.step_slug
  join pgflow.step_states as ss on ss.run_id = ws.run_id and ss.step_slug = ws.step_slug
  where ws.outcome <> 'unreadable' and ss.status = 'waiting';

  -- WAKE: a step with a handler starts; its task reads the signal (get_step_signal).
  with started as (
    update pgflow.step_states as ss
    set status = 'started', started_at = v_now, remaining_tasks = ss.initial_tasks
    where ss.run_id = _finish_waits.run_id and ss.step_slug = any(v_woken) and ss.status = 'waiting'
    returning ss.run_id, ss.step_slug
  )
  select array_agg(st.run_id), array_agg(st.step_slug) into v_woken_runs, v_woken from started as st;
  perform pgflow._queue_started_steps(v_woken_runs, v_woken);

  -- COMPLETE: a step without a handler completes with the signal's payload (NULL after a
  -- timeout), a timer with its due and fired times. One that feeds a map step must produce
  -- an array, as a task must (complete_tasks): else the step and the run fail.
  select array_agg(ws.step_slug), array_agg(case ws.outcome
           when 'signal' then (select sg.payload from pgflow.signals as sg where sg.signal_id = ws.signal_id)
           when 'due' then jsonb_build_object('due_at', ws.deadline, 'fired_at', v_now)
         end)
  into v_done, v_outputs
  from pgflow.wait_states as ws
  where ws.run_id = _finish_waits.run_id and ws.step_slug = any(v_done);
  select d.step_slug, m.map_slug, coalesce(jsonb_typeof(d.output), 'null') as produced into v_bad
  from unnest(v_done, v_outputs) as d (step_slug, output)
  cross join lateral (select pgflow._map_step_fed_by(v_flow_slug, d.step_slug) as map_slug) as m
  join pgflow.steps as s on s.flow_slug = v_flow_slug and s.step_slug = d.step_slug
  where m.map_slug is not null and jsonb_typeof(d.output) is distinct from 'array'
  order by s.step_index
  limit 1;
  if v_bad.step_slug is not null then
    perform pgflow._fail_step(_finish_waits.run_id, v_bad.step_slug,
      format('[TYPE_VIOLATION] Map step %s expects array input but dependency %s produced %s',
             v_bad.map_slug, v_bad.step_slug, v_bad.produced),
      null);
    return;
  end if;
  with done as (
    update pgflow.step_states as ss
    set status = 'completed', started_at = greatest(ws.waiting_since, ss.created_at), completed_at = v_now,
        initial_tasks = 0,
        remaining_tasks = 0, output = d.output
    from unnest(v_done, v_outputs) as d (step_slug, output), pgflow.wait_states as ws
    where ss.run_id = _finish_waits.run_id and ss.step_slug = d.step_slug and ss.status = 'waiting'
      and ws.run_id = ss.run_id and ws.step_slug = ss.step_slug
    returning ss.step_slug
  )
  select array_agg(d.step_slug) into v_done from done as d;
  if v_done is not null then
    perform pgflow._record_events(array['step:completed'],
      array_fill(_finish_waits.run_id, array[cardinality(v_done)]), v_done);
    if pgflow._realtime_enabled() then
      perform pgflow._broadcast(ss.run_id, 'step:' || ss.step_slug || ':completed',
        jsonb_build_object('event_type', 'step:completed', 'run_id', ss.run_id, 'step_slug', ss.step_slug,
          'status', 'completed', 'output', ss.output, 'completed_at', ss.completed_at))
      from pgflow.step_states as ss
      where ss.run_id = _finish_waits.run_id and ss.step_slug = any(v_done);
    end if;
    perform pgflow._release_dependents(array_fill(_finish_waits.run_id, array[cardinality(v_done)]), v_done);
  end if;

  -- SKIP: on_timeout skip or skip-cascade, as an unmet condition.
  v_skip := pgflow._skip_steps(_finish_waits.run_id, coalesce(v_skip, '{}'), 'timed_out');
  if cardinality(v_skip) > 0 then
    perform pgflow._release_dependents(array_fill(_finish_waits.run_id, array[cardinality(v_skip)]), v_skip);
  end if;
  perform pgflow._cascade_force_skip_steps(_finish_waits.run_id, c.step_slug, 'timed_out')
  from unnest(v_cascade) as c (step_slug);
end;
$$;

comment on function pgflow._finish_waits(uuid, text[]) is
'Applies the outcomes just recorded in wait_states for steps step_slugs (text[]) of run
run_id (by _resolve_waits). Fail (timed_out with on_timeout fail, or an unreadable timer):
the step fails with "Wait for signal <name> timed out after <n> seconds" (or the timer''s
error) and its when_exhausted applies: fail fails the step and the run (_fail_step; the
other outcomes are then moot), skip / skip-cascade skip it (skip_reason timed_out, error
kept) and release its dependents or skip them too. A step with a handler whose wait got a
signal (or timed out with on_timeout continue) starts: started, its task queued
(_queue_started_steps). A step without a handler completes (started_at: when it began
waiting, so its duration is the wait): output the signal''s payload,
NULL after a timeout with continue, {"due_at", "fired_at"} for a timer (one that feeds a
map step with anything but an array fails instead, and its run: [TYPE_VIOLATION] Map step
<map> expects array input but dependency <step> produced <type>, as complete_tasks); step:completed
recorded and broadcast, dependents released. on_timeout skip / skip-cascade: skipped
(timed_out) as an unmet condition. Steps no longer waiting are left alone, so a repeated call
changes nothing. Starts no other
step: the caller moves the run on (_cascade, _advance_runs). pgflow-py internal.';
