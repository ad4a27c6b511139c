-- maybe_complete_run: complete a run whose steps are all completed or skipped (upstream's name
-- for _complete_runs of one run).

create function pgflow.maybe_complete_run(run_id uuid)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  perform pgflow._complete_runs(array[maybe_complete_run.run_id]);
end;
$$;

comment on function pgflow.maybe_complete_run(uuid) is
'Completes run run_id when it is started and remaining_steps = 0: status completed,
completed_at now, output = {leaf_step_slug: output} over completed leaf steps (steps with
no dependents; skipped leaves omitted; NULL when none). Broadcasts run:completed.
Otherwise does nothing (never completes a failed run; a repeated call is a no-op). The
single-run form of _complete_runs. As upstream pgflow 0.14.1.';
