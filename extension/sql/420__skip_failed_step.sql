-- _skip_failed_step: a step whose task exhausted its attempts is skipped (when_exhausted =
-- skip / skip-cascade), with its dependents for skip-cascade.

create function pgflow._skip_failed_step(state pgflow.step_states, step pgflow.steps, error_message text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  perform pgflow._skip_exhausted_step((state).run_id, (state).step_slug, (step).when_exhausted,
                                      'handler_failed', _skip_failed_step.error_message);

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
