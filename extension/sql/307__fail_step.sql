-- _fail_step: a step fails, and its run with it (the one implementation of "a step fails").

create function pgflow._fail_step(
  run_id uuid,
  step_slug text,
  error_message text,
  run_error_message text
)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_state pgflow.step_states;
begin
  update pgflow.step_states as ss
  set status = 'failed',
      failed_at = v_now,
      error_message = _fail_step.error_message
  where ss.run_id = _fail_step.run_id
    and ss.step_slug = _fail_step.step_slug
    and ss.status in ('created', 'started', 'waiting')
  returning ss.* into v_state;
  if found then
    perform pgflow._record_events(array['step:failed'], array[v_state.run_id], array[v_state.step_slug],
      details => array[jsonb_build_object('error_message', v_state.error_message)]);
  end if;

  if found and pgflow._realtime_enabled() then
    perform pgflow._broadcast(v_state.run_id, 'step:' || v_state.step_slug || ':failed',
      jsonb_build_object(
        'event_type', 'step:failed',
        'run_id', v_state.run_id,
        'step_slug', v_state.step_slug,
        'status', 'failed',
        'error_message', v_state.error_message,
        'failed_at', v_state.failed_at
      ));
  end if;

  perform pgflow._fail_run(_fail_step.run_id, _fail_step.run_error_message);
end;
$$;

comment on function pgflow._fail_step(uuid, text, text, text) is
'Fails step step_slug of run run_id if it is created, started or waiting: status failed, failed_at
now, error_message; broadcasts step:failed (run_id, step_slug, status, error_message,
failed_at) when realtime is on; then fails the run through _fail_run with
run_error_message (NULL: run:failed carries no error_message), which archives every
outstanding message. remaining_steps is left as it is (as upstream). A step in another
status (or an unknown slug) is left alone, without event, and the run still fails. Callers:
_fail_task (attempts exhausted, when_exhausted fail: both messages the handler''s error),
cascade_resolve_conditions (a condition in fail mode: ''Condition not met'' twice) and
_fail_task_with_type_violation (the type-violation message; the run''s NULL). The caller
holds the run row. pgflow-py internal.';
