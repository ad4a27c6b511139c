-- fail_task: a worker reports that a task's handler failed.

create function pgflow.fail_task(run_id uuid, step_slug text, task_index int, error_message text)
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
  v_max_attempts int;
  v_base_delay int;
  v_delay int;
  v_hidden int;
begin
  -- LOCK: run -> step_state -> step_task, the order every transition uses.
  select r.* into v_run from pgflow.runs as r where r.run_id = fail_task.run_id for update;
  if not found then
    return;
  end if;
  select ss.* into v_state from pgflow.step_states as ss
    where ss.run_id = fail_task.run_id and ss.step_slug = fail_task.step_slug
    for update;
  select t.* into v_task from pgflow.step_tasks as t
    where t.run_id = fail_task.run_id and t.step_slug = fail_task.step_slug
      and t.task_index = fail_task.task_index
    for update;
  if v_task.run_id is null then
    return;
  end if;

  -- GUARD: the run already failed: a started task is closed as failed, no retry.
  if v_run.status = 'failed' then
    if v_task.status = 'started' then
      update pgflow.step_tasks as t
      set status = 'failed', failed_at = now(), error_message = fail_task.error_message
      where t.run_id = fail_task.run_id and t.step_slug = fail_task.step_slug
        and t.task_index = fail_task.task_index
      returning t.* into v_task;
    end if;
    perform pgflow._archive_task_message(fail_task.run_id, fail_task.step_slug, fail_task.task_index);
    return next v_task;
    return;
  end if;
  -- GUARD: late report for a step that is no longer started: only archive the message.
  if v_state.status <> 'started' then
    perform pgflow._archive_task_message(fail_task.run_id, fail_task.step_slug, fail_task.task_index);
    return next v_task;
    return;
  end if;
  -- GUARD: duplicate or late report for a task that is not started: nothing changes.
  if v_task.status <> 'started' then
    return next v_task;
    return;
  end if;

  select s.* into v_step from pgflow.steps as s
    where s.flow_slug = v_state.flow_slug and s.step_slug = v_state.step_slug;
  select coalesce(v_step.opt_max_attempts, f.opt_max_attempts), coalesce(v_step.opt_base_delay, f.opt_base_delay)
    into v_max_attempts, v_base_delay
  from pgflow.flows as f where f.flow_slug = v_step.flow_slug;

  -- MUTATE (retry): the task is queued again; its message reappears after the backoff
  -- floor(base_delay * 2^attempts_count) seconds, measured on the database clock.
  if v_task.attempts_count < v_max_attempts then
    v_delay := pgflow.calculate_retry_delay(v_base_delay, v_task.attempts_count);
    update pgflow.step_tasks as t
    set status = 'queued', started_at = null, failed_at = null, error_message = fail_task.error_message,
        permanently_stalled_at = null
    where t.run_id = fail_task.run_id and t.step_slug = fail_task.step_slug
      and t.task_index = fail_task.task_index
    returning t.* into v_task;
    update pgflow.step_states as ss
    set error_message = null, failed_at = null
    where ss.run_id = fail_task.run_id and ss.step_slug = fail_task.step_slug;
    select count(*) into v_hidden
    from pgflow.set_vt_batch(v_step.flow_slug, array[v_task.message_id], array[v_delay]);
    if v_hidden = 0 then
      -- The message is gone (archived when the stalled-task sweep gave up on the task):
      -- a fresh one carries the retry, so the queued task can still be delivered.
      update pgflow.step_tasks as t
      set message_id = (
        select m.msg_id from pgmq.send(v_step.flow_slug, jsonb_build_object(
          'flow_slug', v_step.flow_slug,
          'run_id', fail_task.run_id,
          'step_slug', fail_task.step_slug,
          'task_index', fail_task.task_index
        ), v_delay) as m (msg_id)
      )
      where t.run_id = fail_task.run_id and t.step_slug = fail_task.step_slug
        and t.task_index = fail_task.task_index
      returning t.* into v_task;
    end if;
    return next v_task;
    return;
  end if;

  -- MUTATE (exhausted): the task fails for good.
  update pgflow.step_tasks as t
  set status = 'failed', failed_at = now(), error_message = fail_task.error_message
  where t.run_id = fail_task.run_id and t.step_slug = fail_task.step_slug
    and t.task_index = fail_task.task_index
  returning t.* into v_task;
  perform pgflow._archive_task_message(fail_task.run_id, fail_task.step_slug, fail_task.task_index);

  if v_step.when_exhausted = 'fail' then
    perform pgflow._fail_step(v_state, fail_task.error_message);
  else
    perform pgflow._skip_failed_step(v_state, v_step, fail_task.error_message);
  end if;

  return next v_task;
end;
$$;

comment on function pgflow.fail_task(uuid, text, int, text) is
'Records that the handler of task (run_id, step_slug, task_index) failed with error_message
and returns the step_tasks row. Locks run, then step_state, then step_task. While
attempts_count (incremented by start_tasks, so the first try counts) is below max_attempts
(step, else flow) the task is queued again and its message hidden for
calculate_retry_delay(base_delay, attempts_count) seconds: base_delay 5 gives 10, 20, 40 s
(a task whose message was archived by the stalled-task sweep gets a fresh message).
Once exhausted the task fails and when_exhausted decides: fail (step and run fail,
step:failed then run:failed, every outstanding message archived), skip (step skipped with
skip_reason handler_failed, dependents run without its output) or skip-cascade (the step
and all its dependents skipped). Late or duplicate calls change nothing: on a failed run a
started task is closed as failed without retry; a step no longer started only archives the
message; a task not started is returned as is. Unknown task: empty result.
As upstream pgflow 0.14.1 fail_task.';
