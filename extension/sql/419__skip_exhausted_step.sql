-- _skip_exhausted_step: a step that failed for good is skipped instead (when_exhausted =
-- skip / skip-cascade), whether its task ran out of attempts or its wait timed out.

create function pgflow._skip_exhausted_step(
  run_id uuid,
  step_slug text,
  when_exhausted text,
  skip_reason text,
  error_message text
)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- A step no longer started or waiting (skipped by an earlier call) is left alone.
  if not exists (
    select 1 from pgflow.step_states as ss
    where ss.run_id = _skip_exhausted_step.run_id and ss.step_slug = _skip_exhausted_step.step_slug
      and ss.status in ('started', 'waiting')
  ) then
    return;
  end if;

  -- The step is skipped with its error; its other tasks (map siblings) will not be needed.
  perform pgflow._skip_steps(_skip_exhausted_step.run_id, array[_skip_exhausted_step.step_slug],
                             _skip_exhausted_step.skip_reason, _skip_exhausted_step.error_message);

  if _skip_exhausted_step.when_exhausted = 'skip-cascade' then
    -- The step and its whole subtree are skipped: no dependent is left to release; the run
    -- only counts the step off (it completes later, after the subtree's events).
    perform pgflow._complete_runs(array[_skip_exhausted_step.run_id], count_off => true,
                                  complete => false);
    perform pgflow._cascade_force_skip_steps(_skip_exhausted_step.run_id, _skip_exhausted_step.step_slug,
                                             _skip_exhausted_step.skip_reason);
  else
    perform pgflow._release_dependents(array[_skip_exhausted_step.run_id],
                                       array[_skip_exhausted_step.step_slug]);
  end if;
end;
$$;

comment on function pgflow._skip_exhausted_step(uuid, text, text, text, text) is
'Skips step step_slug of run run_id, which failed for good, as its when_exhausted (skip or
skip-cascade) says: status skipped with skip_reason (handler_failed for a task out of
attempts, timed_out for a wait) and error_message kept; its other outstanding messages
archived; step:skipped broadcast; remaining_steps decremented once. skip-cascade: every
transitive dependent is skipped too (dependency_skipped). skip: dependents run without
this input (a dependent map gets 0 tasks; _release_dependents). Moves nothing forward (the
caller does). A step that is not started or waiting (skipped, failed or completed already)
is left alone: a repeated call changes nothing. The caller holds the run row. pgflow-py internal, used by _skip_failed_step
and _finish_waits.';
