-- resume_run: an operator lets a paused run go on.

create function pgflow.resume_run(
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
  v_run pgflow.runs;
  v_previous text[];
begin
  v_run := pgflow._lock_run_for_control('resume_run', resume_run.run_id, resume_run.actor,
                                        resume_run.expected_status, array['paused']);
  if v_run.status <> coalesce(resume_run.expected_status, v_run.status) then
    return next pgflow._moved_on(v_run, resume_run.expected_status);
    return;
  end if;

  v_previous := pgflow._set_actor(resume_run.actor, resume_run.reason);
  update pgflow.runs as r
  set status = 'started',
      paused_at = null
  where r.run_id = v_run.run_id;
  perform pgflow._record_events(array['run:resumed'], array[v_run.run_id]);
  perform pgflow._resend_parked_tasks(v_run.run_id);
  perform pgflow._advance_runs(array[v_run.run_id]);
  perform pgflow._set_actor(v_previous[1], v_previous[2]);

  return query select r.run_id, r.status, true, null::text
  from pgflow.runs as r where r.run_id = v_run.run_id;
end;
$$;

comment on function pgflow.resume_run(uuid, text, text, text) is
'Resumes paused run run_id where it stood: the run is started again (paused_at cleared),
its parked queued tasks get new messages (at once when their delay or backoff fell due
during the pause, else after what is left of it; _resend_parked_tasks), and steps that
became ready meanwhile start (_advance_runs; the run completes if nothing is left). actor
(not blank), reason: recorded in run_events (run:resumed). expected_status (optional): when
the run is no longer in that status, nothing is done. Returns run_id, status (started, or
completed), changed, detail as cancel_run. Raises, writing nothing: no_data_found,
object_not_in_prerequisite_state (55000) "resume_run: run <id> is <status>" unless the run
is paused, invalid_parameter_value (blank actor, unknown expected_status). pgflow-py
extension.';
