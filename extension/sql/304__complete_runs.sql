-- _complete_runs: complete the runs that have no remaining step (the one implementation of
-- "a run completes").

create function pgflow._complete_runs(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run_ids uuid[];
begin
  select array_agg(r.run_id order by r.run_id) into v_run_ids
  from pgflow.runs as r
  where r.run_id = any(_complete_runs.run_ids)
    and r.status is not distinct from 'started'
    and r.remaining_steps = 0;
  if v_run_ids is null then
    return;
  end if;

  update pgflow.runs as r
  set status = 'completed',
      completed_at = now(),
      output = o.output
  from pgflow._run_outputs(v_run_ids) as o
  where r.run_id = o.run_id;

  if pgflow._realtime_enabled() then
    perform pgflow._broadcast(r.run_id, 'run:completed',
      jsonb_build_object(
        'event_type', 'run:completed',
        'run_id', r.run_id,
        'flow_slug', r.flow_slug,
        'status', 'completed',
        'output', r.output,
        'completed_at', r.completed_at
      ))
    from unnest(v_run_ids) with ordinality as k (run_id, ord)
    join pgflow.runs as r on r.run_id = k.run_id
    order by k.ord;
  end if;
end;
$$;

comment on function pgflow._complete_runs(uuid[]) is
'Completes every run of run_ids (uuid[]) that is started with remaining_steps = 0: status
completed, completed_at now, output from _run_outputs (completed leaf steps; NULL when none);
broadcasts run:completed for each when realtime is on. Leaves every other run alone (never
completes a failed run), so a repeated call changes nothing. pgflow-py internal;
maybe_complete_run is its single-run form.';
