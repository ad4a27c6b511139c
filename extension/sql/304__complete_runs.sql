-- _complete_runs: complete the runs that have no remaining step (the one implementation of
-- "a run completes").

create function pgflow._complete_runs(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
begin
  if not pgflow._realtime_enabled() then
    update pgflow.runs as r
    set status = 'completed',
        completed_at = now(),
        output = pgflow._run_output(r.run_id)
    where r.run_id = any(_complete_runs.run_ids)
      and r.status = 'started'
      and r.remaining_steps = 0;
    return;
  end if;

  for v_run in
    update pgflow.runs as r
    set status = 'completed',
        completed_at = now(),
        output = pgflow._run_output(r.run_id)
    where r.run_id = any(_complete_runs.run_ids)
      and r.status = 'started'
      and r.remaining_steps = 0
    returning r.*
  loop
    perform pgflow._broadcast(v_run.run_id, 'run:completed',
      jsonb_build_object(
        'event_type', 'run:completed',
        'run_id', v_run.run_id,
        'flow_slug', v_run.flow_slug,
        'status', 'completed',
        'output', v_run.output,
        'completed_at', v_run.completed_at
      ));
  end loop;
end;
$$;

comment on function pgflow._complete_runs(uuid[]) is
'Completes every run of run_ids (uuid[]) that is started with remaining_steps = 0: status
completed, completed_at now, output = _run_output (completed leaf steps; NULL when none);
broadcasts run:completed for each when realtime is on. Leaves every other run alone (never
completes a failed run), so a repeated call changes nothing. pgflow-py internal;
maybe_complete_run is its single-run form.';
