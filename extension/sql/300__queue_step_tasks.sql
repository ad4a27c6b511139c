-- _queue_step_tasks: queue the tasks of steps that have just started (messages + step_tasks
-- rows), for any number of runs of one flow.

create function pgflow._queue_step_tasks(
  flow_slug text,
  start_delay int,
  run_ids uuid[],
  step_slugs text[],
  task_counts int[]
)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_task_run_ids uuid[];
  v_task_step_slugs text[];
  v_task_indexes int[];
begin
  -- Every task of every step, in array order then task_index order.
  select array_agg(g.run_id order by g.ord, i), array_agg(g.step_slug order by g.ord, i),
         array_agg(i order by g.ord, i)
  into v_task_run_ids, v_task_step_slugs, v_task_indexes
  from unnest(_queue_step_tasks.run_ids, _queue_step_tasks.step_slugs, _queue_step_tasks.task_counts)
    with ordinality as g (run_id, step_slug, task_count, ord)
  cross join lateral generate_series(0, g.task_count - 1) as i;
  if v_task_run_ids is null then
    return;
  end if;

  -- One send_batch; message ids pair with tasks by position (a zip of the arrays).
  insert into pgflow.step_tasks (flow_slug, run_id, step_slug, task_index, message_id)
  select _queue_step_tasks.flow_slug, t.run_id, t.step_slug, t.task_index, t.msg_id
  from unnest(
    v_task_run_ids, v_task_step_slugs, v_task_indexes,
    array(
      select m.msg_id
      from pgflow._send_task_messages(_queue_step_tasks.flow_slug, v_task_run_ids, v_task_step_slugs,
                                      v_task_indexes, _queue_step_tasks.start_delay)
        with ordinality as m (msg_id, ord)
      order by m.ord
    )
  ) as t (run_id, step_slug, task_index, msg_id);
end;
$$;

comment on function pgflow._queue_step_tasks(text, int, uuid[], text[], int[]) is
'Queues the tasks of steps just started: for each i, task_counts[i] tasks (task_index
0..n-1) of step step_slugs[i] of run run_ids[i], all of flow flow_slug: one pgmq message
each (_send_task_messages, one send_batch, visible after start_delay seconds), in array
order then task_index order, and one step_tasks row each (status queued) paired with its
message by position. The caller has set the steps started and holds their run rows; a
second call for the same step raises unique_violation (the step_tasks primary key).
pgflow-py internal.';
