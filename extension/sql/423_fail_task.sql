-- fail_task: a worker reports that a task's handler failed (upstream's single-report form of
-- fail_tasks).

create function pgflow.fail_task(
  run_id uuid,
  step_slug text,
  task_index int,
  error_message text,
  attempt int default null
)
returns setof pgflow.step_tasks
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  perform 1
  from pgflow.fail_tasks(array[fail_task.run_id], array[fail_task.step_slug], array[fail_task.task_index],
                         array[fail_task.error_message], array[fail_task.attempt]);
  return query select t.* from pgflow.step_tasks as t
    where t.run_id = fail_task.run_id and t.step_slug = fail_task.step_slug
      and t.task_index = fail_task.task_index;
end;
$$;

comment on function pgflow.fail_task(uuid, text, int, text, int) is
'Records that the handler of task (run_id, step_slug, task_index) failed with error_message
(stored whole up to 16384 characters, else its first and last 8192 around a line saying
how many were cut) and returns the step_tasks row as it is after the call. fail_tasks of one report (which
see). Locks run, then step_state, then step_task. While attempts_count (incremented by
start_tasks, so the first try counts) is below max_attempts (step, else flow) the task is
queued again and its message hidden for calculate_retry_delay(base_delay, attempts_count)
seconds: base_delay 5 gives 10, 20, 40 s (a task whose message was archived by the
stalled-task requeue gets a fresh message). Once exhausted the task fails and
when_exhausted decides: fail (step and run fail, step:failed then run:failed, every
outstanding message archived), skip (step skipped with skip_reason handler_failed,
dependents run without its output) or skip-cascade (the step and all its dependents
skipped). attempt (optional, pgflow-py): the attempts_count of the claim being reported;
when the task''s attempts_count is another, the call writes nothing and the returned row
shows the other attempts_count. Late or duplicate calls change nothing: on a failed run a
started task is closed as failed without retry; a step no longer started only archives
the message; a task not started is returned as is. Unknown task: empty result.
As upstream pgflow 0.14.1 fail_task, with the optional attempt fence.';
