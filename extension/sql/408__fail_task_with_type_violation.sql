-- _fail_task_with_type_violation: a single step fed a map step something not an array.

create function pgflow._fail_task_with_type_violation(
  task pgflow.step_tasks,
  map_step_slug text,
  output jsonb,
  produced text
)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
begin
  update pgflow.step_tasks as t
  set status = 'failed',
      failed_at = v_now,
      output = _fail_task_with_type_violation.output,
      error_message = format('[TYPE_VIOLATION] Produced %s instead of array', produced)
  where t.run_id = (task).run_id and t.step_slug = (task).step_slug and t.task_index = (task).task_index;
  perform pgflow._record_events(array['task:failed'], array[(task).run_id], array[(task).step_slug],
    array[(task).task_index], array[jsonb_build_object('attempt', (task).attempts_count,
      'error_message', format('[TYPE_VIOLATION] Produced %s instead of array', produced), 'retry', false)]);

  -- The step fails, and the run with it (run:failed without error_message, as upstream).
  perform pgflow._fail_step((task).run_id, (task).step_slug,
    format('[TYPE_VIOLATION] Map step %s expects array input but dependency %s produced %s',
           map_step_slug, (task).step_slug, produced),
    null);
  perform pgflow._archive_task_message((task).run_id, (task).step_slug, (task).task_index);
end;
$$;

comment on function pgflow._fail_task_with_type_violation(pgflow.step_tasks, text, jsonb, text) is
'Fails a task whose single step produced output (of JSON type produced, or null) where
dependent map step map_step_slug needs an array: the task fails with the offending output
stored and error [TYPE_VIOLATION] Produced <type> instead of array; the step fails with
[TYPE_VIOLATION] Map step <map> expects array input but dependency <step> produced <type>;
step:failed is broadcast; the run fails (run:failed without error_message, all queued and
started messages archived). Retries and when_exhausted are not consulted.';
