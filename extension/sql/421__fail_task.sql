-- _fail_task: one failure report applied (the one implementation of "a task's handler
-- failed": retry with backoff, or exhaustion).

create function pgflow._fail_task(
  run_id uuid,
  step_slug text,
  task_index int,
  error_message text,
  attempt int,
  permanent boolean default false,
  traceback text default null,
  out outcome text,
  out reason text
)
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
  v_now timestamptz := pgflow._now();
  -- What a task:failed event of this report carries besides attempt, error and retry.
  v_traceback jsonb := case when _fail_task.traceback is null then '{}'::jsonb
                            else jsonb_build_object('traceback', _fail_task.traceback) end;
begin
  select r.* into v_run from pgflow.runs as r where r.run_id = _fail_task.run_id;
  select ss.* into v_state from pgflow.step_states as ss
    where ss.run_id = _fail_task.run_id and ss.step_slug = _fail_task.step_slug;
  select t.* into v_task from pgflow.step_tasks as t
    where t.run_id = _fail_task.run_id and t.step_slug = _fail_task.step_slug
      and t.task_index = _fail_task.task_index;

  -- GUARD: unknown task; a report from an attempt that no longer holds the task.
  if v_task.run_id is null then
    outcome := 'ignored'; reason := 'unknown_task';
    return;
  end if;
  if _fail_task.attempt is not null and _fail_task.attempt is distinct from v_task.attempts_count then
    outcome := 'ignored';
    reason := case when _fail_task.attempt between 1 and v_task.attempts_count - 1
                   then 'stale_attempt' else 'unknown_attempt' end;
    return;
  end if;
  -- GUARD: a cancelled task (its run ended, or it was cancelled) stays as it is.
  if v_task.status = 'cancelled' then
    outcome := 'ignored';
    reason := case v_run.status when 'failed' then 'run_failed' when 'cancelled' then 'run_cancelled'
                                when 'expired' then 'run_expired'
                                else 'task_cancelled' end;
    return;
  end if;
  -- GUARD: the run already failed: a started task is closed as failed, no retry.
  if v_run.status = 'failed' then
    if v_task.status = 'started' then
      update pgflow.step_tasks as t
      set status = 'failed', failed_at = v_now, error_message = _fail_task.error_message
      where t.run_id = _fail_task.run_id and t.step_slug = _fail_task.step_slug
        and t.task_index = _fail_task.task_index;
      perform pgflow._record_events(array['task:failed'], array[_fail_task.run_id],
        array[_fail_task.step_slug], array[_fail_task.task_index], array[jsonb_build_object(
          'attempt', v_task.attempts_count, 'error_message', _fail_task.error_message, 'retry', false)
        || v_traceback]);
      outcome := 'failed';
    else
      outcome := 'ignored';
    end if;
    perform pgflow._archive_task_message(_fail_task.run_id, _fail_task.step_slug, _fail_task.task_index);
    reason := 'run_failed';
    return;
  end if;
  -- GUARD: late report for a step that is no longer started: only archive the message.
  if v_state.status <> 'started' then
    perform pgflow._archive_task_message(_fail_task.run_id, _fail_task.step_slug, _fail_task.task_index);
    outcome := 'ignored'; reason := 'step_not_started';
    return;
  end if;
  -- GUARD: duplicate or late report for a task that is not started: nothing changes.
  if v_task.status <> 'started' then
    outcome := 'ignored'; reason := 'task_not_started';
    return;
  end if;

  select s.* into v_step from pgflow.steps as s
    where s.flow_slug = v_state.flow_slug and s.step_slug = v_state.step_slug;
  select coalesce(v_step.opt_max_attempts, f.opt_max_attempts), coalesce(v_step.opt_base_delay, f.opt_base_delay)
    into v_max_attempts, v_base_delay
  from pgflow.flows as f where f.flow_slug = v_step.flow_slug;

  -- MUTATE (retry): the task is queued again; its message reappears after the backoff
  -- floor(base_delay * 2^(attempts_count - attempt_offset)) seconds, on pgmq's clock (its vt;
  -- pgflow.advance_clock moves it with the engine's time).
  -- (attempt_offset: the attempts made before the run was retried, retry_run)
  if v_task.attempts_count - v_task.attempt_offset < v_max_attempts
     and not coalesce(_fail_task.permanent, false) then
    v_delay := pgflow.calculate_retry_delay(v_base_delay, v_task.attempts_count - v_task.attempt_offset);
    update pgflow.step_tasks as t
    set status = 'queued', started_at = null, failed_at = null, error_message = _fail_task.error_message,
        permanently_stalled_at = null
    where t.run_id = _fail_task.run_id and t.step_slug = _fail_task.step_slug
      and t.task_index = _fail_task.task_index;
    perform pgflow._record_events(array['task:failed'], array[_fail_task.run_id],
      array[_fail_task.step_slug], array[_fail_task.task_index], array[jsonb_build_object(
        'attempt', v_task.attempts_count, 'error_message', _fail_task.error_message, 'retry', true)
      || v_traceback]);
    update pgflow.step_states as ss
    set error_message = null, failed_at = null
    where ss.run_id = _fail_task.run_id and ss.step_slug = _fail_task.step_slug;
    if not exists (
      select 1 from pgflow.set_vt_batch(v_step.flow_slug, array[v_task.message_id], array[v_delay])
    ) then
      -- The message is gone (archived when the stalled-task requeue gave up on the task):
      -- a fresh one carries the retry, so the queued task can still be delivered.
      update pgflow.step_tasks as t
      set message_id = (
        select m.msg_id
        from pgflow._send_task_messages(v_step.flow_slug, array[_fail_task.run_id],
                                        array[_fail_task.step_slug], array[_fail_task.task_index],
                                        v_delay) as m (msg_id)
      )
      where t.run_id = _fail_task.run_id and t.step_slug = _fail_task.step_slug
        and t.task_index = _fail_task.task_index;
    end if;
    -- A paused run starts no task: the retry waits for resume_run.
    if v_run.status = 'paused' then
      perform pgflow._park_queued_tasks(array[_fail_task.run_id]);
    end if;
    -- The task no longer holds a slot of its step's max_in_flight.
    if v_step.opt_max_in_flight is not null then
      perform pgflow._release_throttled_messages(v_step.flow_slug, array[v_step.step_slug]);
    end if;
    outcome := 'retried'; reason := null;
    return;
  end if;

  -- MUTATE (exhausted): the task fails for good; when_exhausted decides for the step.
  update pgflow.step_tasks as t
  set status = 'failed', failed_at = v_now, error_message = _fail_task.error_message
  where t.run_id = _fail_task.run_id and t.step_slug = _fail_task.step_slug
    and t.task_index = _fail_task.task_index;
  perform pgflow._record_events(array['task:failed'], array[_fail_task.run_id],
    array[_fail_task.step_slug], array[_fail_task.task_index], array[jsonb_build_object(
      'attempt', v_task.attempts_count, 'error_message', _fail_task.error_message, 'retry', false)
    || v_traceback]);
  perform pgflow._archive_task_message(_fail_task.run_id, _fail_task.step_slug, _fail_task.task_index);
  if v_step.opt_max_in_flight is not null then
    perform pgflow._release_throttled_messages(v_step.flow_slug, array[v_step.step_slug]);
  end if;

  if v_step.when_exhausted = 'fail' then
    perform pgflow._fail_step(_fail_task.run_id, _fail_task.step_slug, _fail_task.error_message,
                              _fail_task.error_message);
  else
    perform pgflow._skip_failed_step(v_state, v_step, _fail_task.error_message);
  end if;
  outcome := 'failed'; reason := 'exhausted';
end;
$$;

comment on function pgflow._fail_task(uuid, text, int, text, int, boolean, text) is
'Applies one failure report for task (run_id, step_slug, task_index) with error_message,
claimed as attempt (NULL: no fence); permanent true: no retry whatever attempts remain (the
task is exhausted at once); traceback (NULL: none) goes in the details of the task:failed
event the report records, as key traceback (error_message and the tables never hold it);
the caller (fail_tasks) holds the run (_lock_task_reports) and bounds both
texts. Returns (outcome, reason): retried (NULL: queued again, message hidden for
calculate_retry_delay(base_delay, attempts_count) seconds, or a fresh message when the
stalled-task requeue archived it); failed with exhausted (attempts used up: the task fails
and when_exhausted fails the step and run, skips the step, or skips it with its
dependents); failed with run_failed (the run had failed: a started task is closed without
retry); ignored with unknown_task, stale_attempt (attempt is an earlier attempt than the
task''s attempts_count: nothing written), unknown_attempt (an attempt the task never had:
0, negative, or beyond attempts_count; nothing written), run_failed (task not started),
run_cancelled or task_cancelled (the task was cancelled: nothing written), step_not_started (only
the message archived) or task_not_started. pgflow-py internal.';
