-- _record_queued_run_start: the audit trail and broadcast of a queued run that has just
-- started (its slot freed).

create function pgflow._record_queued_run_start(run pgflow.runs)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  perform pgflow._record_events(array['run:started'], array[(_record_queued_run_start.run).run_id],
    details => array[jsonb_strip_nulls(jsonb_build_object(
      'concurrency_key', (_record_queued_run_start.run).concurrency_key,
      'queued_at', (_record_queued_run_start.run).queued_at,
      'deadline', (_record_queued_run_start.run).deadline))],
    default_actor => 'system');
  if pgflow._realtime_enabled() then
    perform pgflow._broadcast((_record_queued_run_start.run).run_id, 'run:started', jsonb_build_object(
      'event_type', 'run:started',
      'run_id', (_record_queued_run_start.run).run_id,
      'flow_slug', (_record_queued_run_start.run).flow_slug,
      'input', (_record_queued_run_start.run).input,
      'status', 'started',
      'remaining_steps', (_record_queued_run_start.run).remaining_steps,
      'started_at', (_record_queued_run_start.run).started_at
    ));
  end if;
end;
$$;

comment on function pgflow._record_queued_run_start(pgflow.runs) is
'Records that run (a runs row, just moved from queued to started) left the queue: run:started
in run_events with details concurrency_key, queued_at and deadline (actor from the
pgflow.actor setting, e.g. the worker whose report freed the slot, else system), and broadcasts run:started as start_flow does when
realtime.send exists. Its steps are recorded as they start (_advance_runs). A run created
started is recorded by start_flow itself (its hot path calls no helper for this).
pgflow-py internal, used by _start_queued_runs.';
