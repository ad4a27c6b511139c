-- _resolve_waits: the waiting steps of a run whose wait can end now end it: a matching
-- pending signal is taken, else a passed deadline times it out (a timer is due) (the one
-- implementation of "a wait resolves").

create function pgflow._resolve_waits(run_id uuid)
returns int
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_wait record;
  v_signal_id bigint;
  v_due record;
  v_error text;
  v_slugs text[] := '{}'::text[];
  v_outcomes text[] := '{}'::text[];
  v_signal_ids bigint[] := '{}'::bigint[];
  v_errors text[] := '{}'::text[];
begin
  perform 1 from pgflow.runs as r where r.run_id = _resolve_waits.run_id
    and r.status is not distinct from 'started';
  if not found then
    return 0;
  end if;

  -- DECIDE, step by step (step_index order): each signal is taken by one wait only, the
  -- oldest matching pending signal first. A signal wins over a deadline that has passed
  -- meanwhile (it was sent before the wait was fired). Callers hold the run row, which every
  -- writer of signals of the run holds too.
  for v_wait in
    select ws.step_slug, ws.deadline, w.kind, w.signal_name, w.signal_match, w.sleep_until
    from pgflow.wait_states as ws
    join pgflow.step_states as ss on ss.run_id = ws.run_id and ss.step_slug = ws.step_slug
    join pgflow.step_waits as w on w.flow_slug = ws.flow_slug and w.step_slug = ws.step_slug
    join pgflow.steps as s on s.flow_slug = ws.flow_slug and s.step_slug = ws.step_slug
    where ws.run_id = _resolve_waits.run_id and ss.status = 'waiting' and ws.resolved_at is null
    order by s.step_index
  loop
    if v_wait.kind = 'signal' then
      update pgflow.signals as sg
      set status = 'taken', taken_at = v_now, taken_by_step = v_wait.step_slug
      where sg.signal_id = (
        select p.signal_id from pgflow.signals as p
        where p.run_id = _resolve_waits.run_id and p.signal_name = v_wait.signal_name
          and p.status = 'pending'
          and (v_wait.signal_match is null or p.payload @> v_wait.signal_match)
        order by p.signal_id
        limit 1
      )
      returning sg.signal_id into v_signal_id;
      if v_signal_id is not null then
        v_slugs := v_slugs || v_wait.step_slug;
        v_outcomes := v_outcomes || 'signal'::text;
        v_signal_ids := v_signal_ids || v_signal_id;
        v_errors := v_errors || null::text;
      elsif v_wait.deadline <= v_now then
        v_slugs := v_slugs || v_wait.step_slug;
        v_outcomes := v_outcomes || 'timed_out'::text;
        v_signal_ids := v_signal_ids || null::bigint;
        v_errors := v_errors || null::text;
      end if;
    else
      v_error := null;
      if v_wait.deadline is null then
        -- A timer read from the input or a dependency: its due time is read once, now.
        v_due := pgflow._timer_due_at(_resolve_waits.run_id, v_wait.sleep_until);
        update pgflow.wait_states as ws set deadline = v_due.due_at
        where ws.run_id = _resolve_waits.run_id and ws.step_slug = v_wait.step_slug;
        v_wait.deadline := v_due.due_at;
        v_error := v_due.error_message;
      end if;
      if v_wait.deadline is null or v_wait.deadline <= v_now then
        v_slugs := v_slugs || v_wait.step_slug;
        v_outcomes := v_outcomes || case when v_wait.deadline is null then 'unreadable' else 'due' end;
        v_signal_ids := v_signal_ids || null::bigint;
        v_errors := v_errors || v_error;
      end if;
    end if;
  end loop;
  if cardinality(v_slugs) = 0 then
    return 0;
  end if;

  -- RECORD each outcome once, in its wait_states row and in the audit trail.
  update pgflow.wait_states as ws
  set resolved_at = v_now, outcome = o.outcome, signal_id = o.signal_id, error_message = o.error_message
  from unnest(v_slugs, v_outcomes, v_signal_ids, v_errors) as o (step_slug, outcome, signal_id, error_message)
  where ws.run_id = _resolve_waits.run_id and ws.step_slug = o.step_slug;
  perform pgflow._record_events(
    array(select case o.outcome when 'signal' then 'signal:taken' when 'timed_out' then 'wait:timed_out'
                   else 'timer:fired' end
          from unnest(v_outcomes) with ordinality as o (outcome, ord) order by o.ord),
    array_fill(_resolve_waits.run_id, array[cardinality(v_slugs)]), v_slugs,
    details => array(
      select jsonb_strip_nulls(jsonb_build_object('outcome', o.outcome, 'signal_id', o.signal_id,
                                                  'error_message', o.error_message))
      from unnest(v_outcomes, v_signal_ids, v_errors) with ordinality as o (outcome, signal_id, error_message, ord)
      order by o.ord));

  -- APPLY: the steps go on (handler runs, or they complete), fail, or are skipped.
  perform pgflow._finish_waits(_resolve_waits.run_id, v_slugs);
  return cardinality(v_slugs);
end;
$$;

comment on function pgflow._resolve_waits(uuid) is
'Resolves the waits of run run_id (when started) that can end now, in step_index order: a
signal wait takes the oldest pending signal of its name whose payload contains its
signal_match (the signal becomes taken by the step; a signal is taken once), else times out
when its deadline has passed; a timer reads its due time at sleep_until the first time
(unreadable: outcome unreadable, with the error), then fires when it is due. Stamps
wait_states (resolved_at, outcome, signal_id, error_message), records signal:taken,
wait:timed_out or timer:fired per step, then _finish_waits applies the outcomes. Returns
the number of waits resolved (0 for a run that is not started; a repeated call resolves
nothing new). The caller holds the run row. pgflow-py internal.';
