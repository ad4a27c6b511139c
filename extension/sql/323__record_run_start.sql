-- _record_run_start: the audit trail and broadcast of a run that was just created (started or
-- queued) or that left the queue (the one place run:started / run:queued are written).

create function pgflow._record_run_start(run pgflow.runs, root_steps_started boolean)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_rerun_of text := pg_catalog.current_setting('pgflow.rerun_of', true);
begin
  perform pgflow._record_events(e.events, array_fill((_record_run_start.run).run_id, array[cardinality(e.events)]),
    e.step_slugs, details => e.details, default_actor => 'app')
  from (
    select array['run:' || (_record_run_start.run).status]
             || coalesce(array_agg('step:started'::text order by s.step_index), '{}') as events,
           array[null::text] || coalesce(array_agg(s.step_slug order by s.step_index), '{}') as step_slugs,
           array[nullif(jsonb_strip_nulls(jsonb_build_object(
             'rerun_of', nullif(v_rerun_of, ''),
             'concurrency_key', (_record_run_start.run).concurrency_key,
             'queued_at', case when (_record_run_start.run).status = 'started'
                               then (_record_run_start.run).queued_at end,
             'deadline', (_record_run_start.run).deadline)), '{}'::jsonb)] as details
    from pgflow.steps as s
    where s.flow_slug = (_record_run_start.run).flow_slug and s.deps_count = 0
      and _record_run_start.root_steps_started
  ) as e;

  if (_record_run_start.run).status = 'started' and pgflow._realtime_enabled() then
    perform pgflow._broadcast((_record_run_start.run).run_id, 'run:started', jsonb_build_object(
      'event_type', 'run:started',
      'run_id', (_record_run_start.run).run_id,
      'flow_slug', (_record_run_start.run).flow_slug,
      'input', (_record_run_start.run).input,
      'status', 'started',
      'remaining_steps', (_record_run_start.run).remaining_steps,
      'started_at', (_record_run_start.run).started_at
    ));
  end if;
end;
$$;

comment on function pgflow._record_run_start(pgflow.runs, boolean) is
'Records that run (a runs row, status started or queued) was created or left the queue:
run:started or run:queued in run_events (details: rerun_of when rerun_flow starts it,
concurrency_key, queued_at for a run that waited in the queue, deadline; NULL when none
applies), followed by step:started for each root step when root_steps_started (start_flow
created them started); actor from the pgflow.actor setting, else app. Broadcasts
run:started when the run is started and realtime.send exists. pgflow-py internal, used by
start_flow and _start_queued_runs.';
