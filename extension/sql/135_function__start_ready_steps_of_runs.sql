-- _queue_step_tasks / _start_ready_steps_of_runs: start_ready_steps for many runs at once,
-- set-based.

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
-- Planner settings for batch functions (README "Performance"): every statement is driven
-- by a batch of keys, so index nested loops are right at any table size, a cached generic
-- plan saves re-planning, and JIT compilation never pays off.
set enable_hashjoin = off
set enable_mergejoin = off
set jit = off
set plan_cache_mode = force_generic_plan
as $$
declare
  v_task_run_ids uuid[];
  v_task_step_slugs text[];
  v_task_indexes int[];
  v_msg_ids bigint[];
begin
  -- One send_batch per group; message ids pair with tasks by position.
  select array_agg(g.run_id order by g.ord, i), array_agg(g.step_slug order by g.ord, i),
         array_agg(i order by g.ord, i)
  into v_task_run_ids, v_task_step_slugs, v_task_indexes
  from unnest(_queue_step_tasks.run_ids, _queue_step_tasks.step_slugs, _queue_step_tasks.task_counts)
    with ordinality as g (run_id, step_slug, task_count, ord)
  cross join lateral generate_series(0, g.task_count - 1) as i;

  v_msg_ids := array(
    select m.msg_id
    from pgflow._send_messages(
      _queue_step_tasks.flow_slug,
      array(
        select jsonb_build_object(
          'flow_slug', _queue_step_tasks.flow_slug,
          'run_id', t.run_id,
          'step_slug', t.step_slug,
          'task_index', t.task_index
        )
        from unnest(v_task_run_ids, v_task_step_slugs, v_task_indexes)
          with ordinality as t (run_id, step_slug, task_index, ord)
        order by t.ord
      ),
      _queue_step_tasks.start_delay
    ) with ordinality as m (msg_id, ord)
    order by m.ord
  );

  insert into pgflow.step_tasks (flow_slug, run_id, step_slug, task_index, message_id)
  select _queue_step_tasks.flow_slug, t.run_id, t.step_slug, t.task_index, t.msg_id
  from unnest(v_task_run_ids, v_task_step_slugs, v_task_indexes, v_msg_ids)
    as t (run_id, step_slug, task_index, msg_id);
end;
$$;

comment on function pgflow._queue_step_tasks(text, int, uuid[], text[], int[]) is
'Queues the tasks of steps just started: for each i, task_counts[i] tasks (task_index 0..n-1)
of step step_slugs[i] of run run_ids[i], all of flow flow_slug: one pgmq message each, sent
in one send_batch delayed by start_delay seconds, in array order then task_index order,
and one step_tasks row each (status queued) paired with its message by position. The
callers have set the steps started. pgflow-py internal.';

create function pgflow._start_ready_steps_of_runs(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
-- Planner settings for batch functions (README "Performance"): every statement is driven
-- by a batch of keys, so index nested loops are right at any table size, a cached generic
-- plan saves re-planning, and JIT compilation never pays off.
set enable_hashjoin = off
set enable_mergejoin = off
set jit = off
set plan_cache_mode = force_generic_plan
as $$
declare
  v_group record;
begin
  -- MUTATE: ready steps (created, no pending deps, known non-zero task count) of started
  -- runs become started; their tasks are queued with one send_batch per flow and start
  -- delay, messages ordered by run, step_index and task_index.
  for v_group in
    with started as (
      -- No separate FOR UPDATE: the UPDATE locks the rows and re-checks them if a
      -- concurrent transaction changed them meanwhile; callers hold the run rows.
      update pgflow.step_states as ss
      set status = 'started',
          started_at = now(),
          remaining_tasks = ss.initial_tasks
      from pgflow.runs as r
      where ss.run_id = any(_start_ready_steps_of_runs.run_ids)
        and r.run_id = ss.run_id
        and r.status = 'started'
        and ss.status = 'created'
        and ss.remaining_deps = 0
        and ss.initial_tasks > 0
      returning ss.flow_slug, ss.run_id, ss.step_slug, ss.initial_tasks
    )
    select
      st.flow_slug,
      coalesce(s.opt_start_delay, 0) as start_delay,
      array_agg(st.run_id order by st.run_id, s.step_index) as run_ids,
      array_agg(st.step_slug order by st.run_id, s.step_index) as step_slugs,
      array_agg(st.initial_tasks order by st.run_id, s.step_index) as task_counts
    from started as st
    join pgflow.steps as s on s.flow_slug = st.flow_slug and s.step_slug = st.step_slug
    group by st.flow_slug, coalesce(s.opt_start_delay, 0)
  loop
    perform pgflow._queue_step_tasks(v_group.flow_slug, v_group.start_delay, v_group.run_ids,
                                     v_group.step_slugs, v_group.task_counts);
  end loop;
end;
$$;

comment on function pgflow._start_ready_steps_of_runs(uuid[]) is
'start_ready_steps for every run in run_ids (uuid[]) in a fixed number of statements:
each step that is created, has no unfinished dependency and a known task count > 0, in a
started run, becomes started (remaining_tasks = initial_tasks) and gets one step_tasks
row and one pgmq message per task; messages go out in one send_batch per flow and start
delay (seconds). Sends no broadcasts and evaluates no condition: callers use it only
while realtime is off, for runs whose flow has no conditions and no ready taskless step
(complete_tasks). pgflow-py internal.';
