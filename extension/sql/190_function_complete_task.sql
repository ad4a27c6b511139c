-- complete_task: a worker reports a task's output.

create function pgflow.complete_task(run_id uuid, step_slug text, task_index int, output jsonb)
returns setof pgflow.step_tasks
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
  v_state pgflow.step_states;
  v_step pgflow.steps;
  v_task pgflow.step_tasks;
  v_child_map text;
  v_produced text;
begin
  -- GUARD: a report for a failed run changes nothing, not even the archive.
  select r.* into v_run from pgflow.runs as r where r.run_id = complete_task.run_id;
  if not found then
    return;
  end if;
  if v_run.status = 'failed' then
    return query select t.* from pgflow.step_tasks as t
      where t.run_id = complete_task.run_id and t.step_slug = complete_task.step_slug
        and t.task_index = complete_task.task_index;
    return;
  end if;

  -- LOCK: run -> step_state -> step_task, the order every transition uses.
  select r.* into v_run from pgflow.runs as r where r.run_id = complete_task.run_id for update;
  select ss.* into v_state from pgflow.step_states as ss
    where ss.run_id = complete_task.run_id and ss.step_slug = complete_task.step_slug
    for update;
  select t.* into v_task from pgflow.step_tasks as t
    where t.run_id = complete_task.run_id and t.step_slug = complete_task.step_slug
      and t.task_index = complete_task.task_index
    for update;
  if v_task.run_id is null then
    return;
  end if;

  -- GUARD: the run failed while we waited for the lock.
  if v_run.status = 'failed' then
    return next v_task;
    return;
  end if;
  -- GUARD: late report for a step that is no longer started (skipped, failed): only the
  -- message goes to the archive.
  if v_state.status <> 'started' then
    perform pgflow._archive_task_message(complete_task.run_id, complete_task.step_slug, complete_task.task_index);
    return next v_task;
    return;
  end if;
  -- GUARD: duplicate or late report for a task that is not started (already completed,
  -- failed, or requeued by the stalled-task sweep): nothing changes.
  if v_task.status <> 'started' then
    return next v_task;
    return;
  end if;

  -- VALIDATE: an output over pgflow.max_payload_bytes raises; nothing has been written, so
  -- the task stays started (the worker then reports it with fail_task).
  perform pgflow._check_payload_size(complete_task.output, format('Output of task %s[%s] of run %s',
    complete_task.step_slug, complete_task.task_index, complete_task.run_id));

  select s.* into v_step from pgflow.steps as s
    where s.flow_slug = v_state.flow_slug and s.step_slug = v_state.step_slug;

  -- VALIDATE: a single step feeding a map must produce an array. A violation fails the run
  -- at once, whatever max_attempts and when_exhausted say.
  if v_step.step_type = 'single' then
    select d.step_slug into v_child_map
    from pgflow.deps as d
    join pgflow.steps as cs on cs.flow_slug = d.flow_slug and cs.step_slug = d.step_slug
    join pgflow.step_states as css on css.run_id = complete_task.run_id and css.step_slug = d.step_slug
    where d.flow_slug = v_step.flow_slug
      and d.dep_slug = v_step.step_slug
      and cs.step_type = 'map'
      and css.initial_tasks is null
    order by cs.step_index
    limit 1;
    if v_child_map is not null and jsonb_typeof(complete_task.output) is distinct from 'array' then
      v_produced := coalesce(jsonb_typeof(complete_task.output), 'null');
      perform pgflow._fail_task_with_type_violation(v_task, v_child_map, complete_task.output, v_produced);
      return query select t.* from pgflow.step_tasks as t
        where t.run_id = complete_task.run_id and t.step_slug = complete_task.step_slug
          and t.task_index = complete_task.task_index;
      return;
    end if;
  end if;

  -- MUTATE: the task, then its step (the last task completes it and stores the output:
  -- a map's is the array of task outputs in task_index order).
  update pgflow.step_tasks as t
  set status = 'completed',
      completed_at = now(),
      output = complete_task.output
  where t.run_id = complete_task.run_id and t.step_slug = complete_task.step_slug
    and t.task_index = complete_task.task_index
  returning t.* into v_task;

  update pgflow.step_states as ss
  set remaining_tasks = ss.remaining_tasks - 1,
      status = case when ss.remaining_tasks = 1 then 'completed' else ss.status end,
      completed_at = case when ss.remaining_tasks = 1 then now() end,
      output = case
        when ss.remaining_tasks <> 1 then null
        when v_step.step_type = 'map' then (
          select jsonb_agg(t.output order by t.task_index)
          from pgflow.step_tasks as t
          where t.run_id = ss.run_id and t.step_slug = ss.step_slug
        )
        else complete_task.output
      end
  where ss.run_id = complete_task.run_id and ss.step_slug = complete_task.step_slug
  returning ss.* into v_state;

  perform pgflow._archive_task_message(complete_task.run_id, complete_task.step_slug, complete_task.task_index);

  if v_state.status = 'completed' then
    perform pgflow._complete_step_cascade(v_state, v_step);
  end if;

  return next v_task;
end;
$$;

comment on function pgflow.complete_task(uuid, text, int, jsonb) is
'Records output (jsonb, stored as given: 0, false, "", {} and null stay themselves) for
task (run_id, step_slug, task_index) and returns the step_tasks row. Locks run, then
step_state, then step_task. The last task of a step completes it (output: the task output,
or for a map the array of task outputs in task_index order), releases its dependents,
runs conditions and the empty-map cascade, starts ready steps and completes the run when
nothing remains; step:completed is broadcast before any cascaded event. A single step
whose output feeds a map step must produce an array: otherwise the task and step fail with
[TYPE_VIOLATION] and the run fails at once. Late or duplicate calls change nothing: a
failed run returns the row untouched (no archive); a step no longer started only archives
the message; a task not started (completed, failed, requeued) is returned as is. Unknown
task: empty result. Raises program_limit_exceeded, changing nothing, when the output of a
started task is larger than pgflow.max_payload_bytes (default 16 MiB, measured with
pg_column_size; upstream has no limit). As upstream pgflow 0.14.1 complete_task, stricter
where noted.';
