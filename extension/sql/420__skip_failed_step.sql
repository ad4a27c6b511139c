-- _skip_failed_step: an exhausted task skips its step (when_exhausted = skip / skip-cascade).

create function pgflow._skip_failed_step(state pgflow.step_states, step pgflow.steps, error_message text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_state pgflow.step_states;
begin
  update pgflow.step_states as ss
  set status = 'skipped',
      skip_reason = 'handler_failed',
      skipped_at = now(),
      error_message = _skip_failed_step.error_message,
      remaining_tasks = null
  where ss.run_id = (state).run_id and ss.step_slug = (state).step_slug
  returning ss.* into v_state;

  -- Other tasks of the step (map siblings) will not be needed.
  perform pgflow._archive_messages((step).flow_slug, array(
    select t.message_id
    from pgflow.step_tasks as t
    where t.run_id = (state).run_id
      and t.step_slug = (state).step_slug
      and t.status in ('queued', 'started')
      and t.message_id is not null
  ));

  if pgflow._realtime_enabled() then
    perform pgflow._broadcast(v_state.run_id, 'step:' || v_state.step_slug || ':skipped',
      jsonb_build_object(
        'event_type', 'step:skipped',
        'run_id', v_state.run_id,
        'step_slug', v_state.step_slug,
        'status', 'skipped',
        'skip_reason', 'handler_failed',
        'error_message', v_state.error_message,
        'skipped_at', v_state.skipped_at
      ));
  end if;

  if (step).when_exhausted = 'skip-cascade' then
    -- The step and its whole subtree are skipped: no dependent is left to release.
    update pgflow.runs as r
    set remaining_steps = r.remaining_steps - 1
    where r.run_id = (state).run_id;
    perform pgflow._cascade_force_skip_steps((state).run_id, (state).step_slug, 'handler_failed');
  else
    perform pgflow._release_dependents(array[(state).run_id], array[(state).step_slug]);
  end if;

  -- CASCADE: conditions, empty maps, ready steps start, the run completes when done.
  perform pgflow._advance_runs(array[(state).run_id]);
end;
$$;

comment on function pgflow._skip_failed_step(pgflow.step_states, pgflow.steps, text) is
'Skips step (state) whose task exhausted its attempts: status skipped, skip_reason
handler_failed, error_message kept; archives its other outstanding messages; broadcasts
step:skipped (with error_message); decrements remaining_steps once. skip-cascade: also
skips every transitive dependent (dependency_skipped). skip: dependents run without this
input (a dependent map gets 0 tasks; _release_dependents). Then _advance_runs
(conditions, empty maps, ready steps, run completion).';
