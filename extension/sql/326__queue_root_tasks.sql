-- _queue_root_tasks: the messages of a new run's root steps (start_flow's fast path).

create function pgflow._queue_root_tasks(flow_slug text, run_id uuid, root_tasks int)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_group record;
begin
  -- One send per start delay, in step order.
  for v_group in
    select coalesce(s.opt_start_delay, 0) as start_delay,
           array_agg(s.step_slug order by s.step_index) as step_slugs,
           array_agg(case when s.step_type = 'map' then _queue_root_tasks.root_tasks else 1 end
                     order by s.step_index) as task_counts
    from pgflow.steps as s
    where s.flow_slug = _queue_root_tasks.flow_slug and s.deps_count = 0
    group by coalesce(s.opt_start_delay, 0)
    order by min(s.step_index)
  loop
    perform pgflow._queue_step_tasks(_queue_root_tasks.flow_slug, v_group.start_delay,
      array_fill(_queue_root_tasks.run_id, array[cardinality(v_group.step_slugs)]), v_group.step_slugs,
      v_group.task_counts);
  end loop;
end;
$$;

comment on function pgflow._queue_root_tasks(text, uuid, int) is
'Queues the tasks of every root step of run run_id of flow flow_slug, which start_flow
created started: one task per single step, root_tasks (the input array''s length) per
root map step, sent with one _queue_step_tasks call per start delay. pgflow-py internal,
start_flow''s fast path (flows without conditions, waits or realtime).';
