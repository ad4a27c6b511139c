-- retry_run: an operator retries a failed run from where it failed.

create function pgflow.retry_run(
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
  v_run := pgflow._lock_run_for_control('retry_run', retry_run.run_id, retry_run.actor,
                                        retry_run.expected_status, array['failed']);
  if v_run.status <> coalesce(retry_run.expected_status, v_run.status) then
    return next pgflow._moved_on(v_run, retry_run.expected_status);
    return;
  end if;

  v_previous := pgflow._set_actor(retry_run.actor, retry_run.reason);
  perform pgflow._reopen_run(v_run.run_id, true);
  perform pgflow._set_actor(v_previous[1], v_previous[2]);

  return query select r.run_id, r.status, true, null::text
  from pgflow.runs as r where r.run_id = v_run.run_id;
end;
$$;

comment on function pgflow.retry_run(uuid, text, text, text) is
'Retries failed run run_id from its failed step(s): the run is started again; failed steps
and the steps cancelled because the run failed are created again with fresh attempt
budgets and start as their dependencies allow; completed steps keep their outputs and do
not run again (_reopen_run). Retrying again after another failure works the same way.
actor (not blank), reason: recorded in run_events (step:reset per step set back, run:retried,
then step:started for the steps that start). expected_status (optional): when the run is no longer in that status,
nothing is done. Returns run_id, status (started, or failed/completed when the cascade
decided at once), changed, detail as cancel_run. Raises, writing nothing: no_data_found,
object_not_in_prerequisite_state (55000) "retry_run: run <id> is <status>" unless the run
is failed, and (55000) "a failed run cannot start again: the deadline of run <id> passed at
<t>" when its deadline has passed; configuration_limit_exceeded (53400) when the run has a
concurrency_key whose slots are all held (it freed its own when it failed; see _reopen_run),
invalid_parameter_value (blank actor, unknown expected_status). pgflow-py extension.';
