-- _queue_step_tasks: queue the tasks of steps that have just started (messages + step_tasks
-- rows), for any number of runs of one flow.

create function pgflow._queue_step_tasks(
  flow_slug text,
  start_delay int,
  run_ids uuid[],
  step_slugs text[],
  task_counts int[],
  maps boolean default null
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
  v_has_map boolean;
  v_now timestamptz;
begin
  -- Every task of every step, in array order then task_index order. When each step has one
  -- task and the caller says whether one is a map step (the usual start), the arrays are
  -- the tasks already: nothing to look up.
  if _queue_step_tasks.maps is not null and 1 = all(_queue_step_tasks.task_counts) then
    v_task_run_ids := _queue_step_tasks.run_ids;
    v_task_step_slugs := _queue_step_tasks.step_slugs;
    v_task_indexes := array_fill(0, array[cardinality(_queue_step_tasks.run_ids)]);
    v_has_map := _queue_step_tasks.maps;
  else
    select array_agg(g.run_id order by g.ord, i), array_agg(g.step_slug order by g.ord, i),
           array_agg(i order by g.ord, i), bool_or(s.step_type = 'map')
    into v_task_run_ids, v_task_step_slugs, v_task_indexes, v_has_map
    from unnest(_queue_step_tasks.run_ids, _queue_step_tasks.step_slugs, _queue_step_tasks.task_counts)
      with ordinality as g (run_id, step_slug, task_count, ord)
    join pgflow.steps as s on s.flow_slug = _queue_step_tasks.flow_slug and s.step_slug = g.step_slug
    cross join lateral generate_series(0, g.task_count - 1) as i;
  end if;
  if v_task_run_ids is null then
    return;
  end if;
  v_now := pgflow._now();

  -- One send_batch; message ids pair with tasks by position (a zip of the arrays).
  insert into pgflow.step_tasks (flow_slug, run_id, step_slug, task_index, message_id, queued_at)
  select _queue_step_tasks.flow_slug, t.run_id, t.step_slug, t.task_index, t.msg_id, v_now
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

  -- Map steps: the tasks' elements, stored once in chunks of about 16 kB of consecutive
  -- elements (a chunk starts where the elements before it in the array reach the next
  -- multiple of 16384 bytes), so that a claim reads a small value whatever the array's size.
  if v_has_map then
    insert into pgflow.map_task_inputs (run_id, step_slug, first_index, inputs)
    select e.run_id, e.step_slug, min(e.task_index), jsonb_agg(e.value order by e.task_index)
    from (
      select g.run_id, g.step_slug, (a.ord - 1)::int as task_index, a.value,
        coalesce(sum(pg_catalog.pg_column_size(a.value)) over (
          partition by g.run_id, g.step_slug order by a.ord
          rows between unbounded preceding and 1 preceding), 0) / 16384 as chunk
      from unnest(_queue_step_tasks.run_ids, _queue_step_tasks.step_slugs) as g (run_id, step_slug)
      join pgflow.steps as s
        on s.flow_slug = _queue_step_tasks.flow_slug and s.step_slug = g.step_slug and s.step_type = 'map'
      cross join lateral (
        select case
          when s.deps_count = 0 then (select r.input from pgflow.runs as r where r.run_id = g.run_id)
          else (
            select ps.output
            from pgflow.deps as d
            join pgflow.step_states as ps on ps.run_id = g.run_id and ps.step_slug = d.dep_slug
            where d.flow_slug = s.flow_slug and d.step_slug = s.step_slug
          )
        end as elements
      ) as src
      cross join lateral jsonb_array_elements(src.elements) with ordinality as a (value, ord)
    ) as e
    group by e.run_id, e.step_slug, e.chunk;
  end if;
end;
$$;

comment on function pgflow._queue_step_tasks(text, int, uuid[], text[], int[], boolean) is
'Queues the tasks of steps just started: for each i, task_counts[i] tasks (task_index 0..n-1)
of step step_slugs[i] of run run_ids[i], all of flow flow_slug: one pgmq message each
(_send_task_messages, one send_batch, visible after start_delay seconds), in array order
then task_index order, and one step_tasks row each (status queued, queued_at the engine''s
time, pgflow._now()) paired with its message by position; for a map step, the tasks''
elements (of the run input for a root map, of the parent''s output for a dependent map) in
map_task_inputs, in chunks of about 16 kB. maps (optional): whether one of the steps is a
map step, when the caller knows (NULL: looked up; with it and one task per step nothing is
read). The caller has set the steps started and holds their run rows; a second call for the
same step raises unique_violation (the step_tasks primary key). pgflow-py internal.';
