-- complete_task: a worker reports a task's output (upstream's single-report form of
-- complete_tasks).

create function pgflow.complete_task(
  run_id uuid,
  step_slug text,
  task_index int,
  output jsonb,
  attempt int default null
)
returns setof pgflow.step_tasks
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_reason text;
begin
  select c.reason into v_reason
  from pgflow.complete_tasks(array[complete_task.run_id], array[complete_task.step_slug],
                             array[complete_task.task_index], array[complete_task.output],
                             array[complete_task.attempt]) as c;
  -- As upstream callers expect: an output over the limit raises (nothing was written).
  if v_reason = 'payload_too_large' then
    perform pgflow._check_payload_size(complete_task.output, format('Output of task %s[%s] of run %s',
      complete_task.step_slug, complete_task.task_index, complete_task.run_id));
  end if;
  return query select t.* from pgflow.step_tasks as t
    where t.run_id = complete_task.run_id and t.step_slug = complete_task.step_slug
      and t.task_index = complete_task.task_index;
end;
$$;

comment on function pgflow.complete_task(uuid, text, int, jsonb, int) is
'Records output (jsonb, stored as given: 0, false, "", {} and null stay themselves) for
task (run_id, step_slug, task_index) and returns the step_tasks row as it is after the
call. complete_tasks of one report (which see): locks the run (step_state and task
change under it); the last task of a step completes it (output: the task output, or for a map the
array of task outputs in task_index order), releases its dependents, runs conditions and
the empty-map cascade, starts ready steps and completes the run when nothing remains;
step:completed is broadcast before any cascaded event. A single step whose output feeds a
map step must produce an array: otherwise the task and step fail with [TYPE_VIOLATION] and
the run fails at once. attempt (optional, pgflow-py): the attempts_count of the claim
being reported; when the task''s attempts_count is another (the stalled-task requeue gave
the task to a newer attempt), the call writes nothing and the returned row shows the other
attempts_count. Late or duplicate calls change nothing: a failed run returns the row
untouched (no archive); a step no longer started only archives the message; a task not
started (completed, failed, requeued) is returned as is. Unknown task: empty result.
Raises program_limit_exceeded, changing nothing, when the output of a started task is
larger than pgflow.max_payload_bytes (default 16 MiB, measured with pg_column_size;
upstream has no limit). As upstream pgflow 0.14.1 complete_task, stricter where noted.';
