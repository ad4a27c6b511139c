-- _skip_failed_step: an exhausted task skips its step (when_exhausted = skip / skip-cascade).

create function pgflow._skip_failed_step(state pgflow.step_states, step pgflow.steps, error_message text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- The step is skipped with the handler's error; its other tasks (map siblings) will not
  -- be needed.
  perform pgflow._skip_steps((state).run_id, array[(state).step_slug], 'handler_failed',
                             _skip_failed_step.error_message);

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
