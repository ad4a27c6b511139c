-- pause_run: an operator holds a run (no new task starts).

create function pgflow.pause_run(
  run_id uuid,
  actor text,
  reason text,
  expected_status text default null
)
returns setof pgflow.run_control_result
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_run pgflow.runs;
  v_previous text[];
begin
  v_run := pgflow._lock_run_for_control('pause_run', pause_run.run_id, pause_run.actor,
                                        pause_run.expected_status, array['started']);
  if v_run.status <> coalesce(pause_run.expected_status, v_run.status) then
    return next pgflow._moved_on(v_run, pause_run.expected_status);
    return;
  end if;

  v_previous := pgflow._set_actor(pause_run.actor, pause_run.reason);
  update pgflow.runs as r
  set status = 'paused',
      paused_at = v_now
  where r.run_id = v_run.run_id;
  perform pgflow._record_events(array['run:paused'], array[v_run.run_id]);
  perform pgflow._park_queued_tasks(array[v_run.run_id]);
  perform pgflow._set_actor(v_previous[1], v_previous[2]);

  return query select v_run.run_id, 'paused'::text, true, null::text;
end;
$$;

comment on function pgflow.pause_run(uuid, text, text, text) is
'Pauses run run_id: a started run becomes paused (paused_at now) and starts no new task:
the messages of its queued tasks are archived (the tasks stay queued; _park_queued_tasks),
steps that become ready are not started, and a task queued again meanwhile (a retry) is
parked too; a task of the run that stalls is requeued only after resume_run. Tasks already started run to their end and their
reports are recorded as usual (a paused run whose last step completes is completed).
resume_run goes on where the run stood. actor (not blank), reason: recorded in run_events
(run:paused). expected_status (optional): when the run is no longer in that status,
nothing is done. Returns run_id, status, changed, detail as cancel_run. Raises, writing
nothing: no_data_found (unknown run), object_not_in_prerequisite_state (55000) "pause_run:
run <id> is <status>" unless the run is started, invalid_parameter_value (blank actor,
unknown expected_status). pgflow-py extension.';
