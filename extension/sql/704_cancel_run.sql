-- cancel_run: an operator stops a run for good.

create function pgflow.cancel_run(
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
  v_run := pgflow._lock_run_for_control('cancel_run', cancel_run.run_id, cancel_run.actor,
                                        cancel_run.expected_status, array['started', 'paused', 'queued']);
  if v_run.status <> coalesce(cancel_run.expected_status, v_run.status) then
    return next pgflow._moved_on(v_run, cancel_run.expected_status);
    return;
  end if;

  v_previous := pgflow._set_actor(cancel_run.actor, cancel_run.reason);
  update pgflow.runs as r
  set status = 'cancelled',
      cancelled_at = v_now,
      paused_at = null
  where r.run_id = v_run.run_id;
  perform pgflow._record_events(array['run:cancelled'], array[v_run.run_id]);
  perform pgflow._cancel_unfinished_work(array[v_run.run_id]);
  -- A run that held a concurrency slot frees it (a queued one held none).
  if v_run.concurrency_key is not null and v_run.status <> 'queued' then
    perform pgflow._release_concurrency_slots(array[v_run.run_id]);
  end if;
  perform pgflow._set_actor(v_previous[1], v_previous[2]);

  return query select v_run.run_id, 'cancelled'::text, true, null::text;
end;
$$;

comment on function pgflow.cancel_run(uuid, text, text, text) is
'Cancels run run_id for good: a started, paused or queued run becomes cancelled (cancelled_at now);
its unfinished steps and its queued and started tasks become cancelled and their messages
are archived (_cancel_unfinished_work); a run that held a concurrency slot frees it, and
the next queued run of its key starts (_release_concurrency_slots); a worker still running one of its handlers learns it
at its next check (pgflow.cancelled_tasks) and its late report is ignored (reason
run_cancelled). actor (text, not blank): who cancels; reason (text, may be NULL): why;
both go to run_events (run:cancelled, step:cancelled). expected_status (optional): when the
run is no longer in that status, nothing is done. Returns one row: run_id, status (after
the call), changed (false when nothing was done), detail (why nothing was done, else NULL).
Raises, writing nothing: no_data_found for an unknown run, object_not_in_prerequisite_state
(55000) "cancel_run: run <id> is <status>" for a completed, failed, cancelled or expired run,
invalid_parameter_value for a blank actor or an unknown expected_status. Lock order: run,
then step_states, then step_tasks. pgflow-py extension.';
