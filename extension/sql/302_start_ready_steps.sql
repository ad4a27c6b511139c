-- start_ready_steps: start every ready step of a run and queue its tasks (upstream's name for
-- _start_ready_steps of one run).

create function pgflow.start_ready_steps(run_id uuid)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  perform pgflow._start_ready_steps(array[start_ready_steps.run_id]);
end;
$$;

comment on function pgflow.start_ready_steps(uuid) is
'Starts every step of run run_id that is created, has no unfinished dependency and a known
task count > 0: status started, remaining_tasks = initial_tasks, one pgmq message per task
(delayed by the step''s start_delay seconds) and one step_tasks row per task (status
queued). Steps start in step_index order; broadcasts step:started for each. No-op for a
completed or failed run, and for a repeated call. Does not evaluate conditions (callers run
_cascade first). The single-run form of _start_ready_steps. As upstream pgflow 0.14.1
start_ready_steps.';
