-- _fail_run_by_condition: a condition in fail mode was not met.

create function pgflow._fail_run_by_condition(run_id uuid, step_slug text, realtime boolean)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_step pgflow.step_states;
begin
  update pgflow.step_states as ss
  set status = 'failed',
      failed_at = now(),
      error_message = 'Condition not met'
  where ss.run_id = _fail_run_by_condition.run_id
    and ss.step_slug = _fail_run_by_condition.step_slug
    and ss.status = 'created'
  returning ss.* into v_step;

  if found and realtime then
    perform pgflow._broadcast(v_step.run_id, 'step:' || v_step.step_slug || ':failed',
      jsonb_build_object(
        'event_type', 'step:failed',
        'run_id', v_step.run_id,
        'step_slug', v_step.step_slug,
        'status', 'failed',
        'error_message', v_step.error_message,
        'failed_at', v_step.failed_at
      ));
  end if;

  perform pgflow._fail_run(_fail_run_by_condition.run_id, 'Condition not met');
end;
$$;

comment on function pgflow._fail_run_by_condition(uuid, text, boolean) is
'Fails step step_slug of run run_id with error_message ''Condition not met'' (when_unmet =
fail), then fails the run through _fail_run. Broadcasts step:failed before run:failed when
realtime is true. remaining_steps is not decremented (as upstream). Callers pass a created
step; for a step in any other status (or an unknown slug) the step is left alone, no
step:failed is sent, and the run still fails.';
