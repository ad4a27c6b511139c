-- _fail_step: an exhausted task fails its step (when_exhausted = fail) and the run.

create function pgflow._fail_step(state pgflow.step_states, error_message text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_state pgflow.step_states;
begin
  update pgflow.step_states as ss
  set status = 'failed',
      failed_at = now(),
      error_message = _fail_step.error_message
  where ss.run_id = (state).run_id and ss.step_slug = (state).step_slug
  returning ss.* into v_state;

  if pgflow._realtime_enabled() then
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

  perform pgflow._fail_run((state).run_id, _fail_step.error_message);
end;
$$;

comment on function pgflow._fail_step(pgflow.step_states, text) is
'Fails step (state) with error_message, broadcasts step:failed, then fails its run with the
same message (_fail_run: run:failed, outstanding messages archived).';
