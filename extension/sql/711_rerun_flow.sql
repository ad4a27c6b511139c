-- rerun_flow: a new run of a run's flow with the same input.

create function pgflow.rerun_flow(
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
  v_new_run_id uuid;
  v_previous_rerun_of text;
begin
  v_run := pgflow._lock_run_for_control('rerun_flow', rerun_flow.run_id, rerun_flow.actor,
                                        rerun_flow.expected_status,
                                        array['started', 'paused', 'completed', 'failed', 'cancelled', 'expired']);
  if v_run.status <> coalesce(rerun_flow.expected_status, v_run.status) then
    return next pgflow._moved_on(v_run, rerun_flow.expected_status);
    return;
  end if;

  v_previous := pgflow._set_actor(rerun_flow.actor, rerun_flow.reason);
  v_previous_rerun_of := pg_catalog.current_setting('pgflow.rerun_of', true);
  perform pg_catalog.set_config('pgflow.rerun_of', v_run.run_id::text, true);
  select s.run_id into v_new_run_id
  from pgflow.start_flow(v_run.flow_slug, v_run.input, concurrency_key => v_run.concurrency_key) as s;
  perform pg_catalog.set_config('pgflow.rerun_of', coalesce(v_previous_rerun_of, ''), true);
  update pgflow.runs as r set rerun_of = v_run.run_id where r.run_id = v_new_run_id;
  insert into pgflow.run_events (run_id, event, actor, reason, details)
  values (v_run.run_id, 'run:rerun', rerun_flow.actor, rerun_flow.reason,
          jsonb_build_object('new_run_id', v_new_run_id));
  perform pgflow._set_actor(v_previous[1], v_previous[2]);

  return query select r.run_id, r.status, true, null::text
  from pgflow.runs as r where r.run_id = v_new_run_id;
end;
$$;

comment on function pgflow.rerun_flow(uuid, text, text, text) is
'Starts a new run of the flow of run run_id with the same input and concurrency_key
(start_flow: it may be queued, or refused, by the flow''s concurrency_limit; no idempotency
key; the deadline is the flow''s run_timeout from now, if any); the new run''s rerun_of
names run_id. The old run is left as it is (any status but queued: a queued run is not
rerun, it has not run). actor (not blank),
reason: recorded in run_events on both runs (run:rerun with details.new_run_id on the old
one, run:started on the new one). expected_status (optional): when the old run is no
longer in that status, nothing is done. Returns one row: the NEW run''s run_id and status,
changed, detail (or, when nothing was done, the old run''s id and status). Raises, writing
nothing: no_data_found for an unknown run, invalid_parameter_value (blank actor, unknown
expected_status), and what start_flow raises (the flow was deleted, the input is too
large). pgflow-py extension.';
