-- complete_tasks: a worker reports many task outputs in one call (group commit).
--
-- Same outcome as calling complete_task for each item in array order, in one transaction
-- and with a fixed number of statements per call instead of per task: tasks, steps,
-- dependents and runs are updated set-based, messages archived once per flow. Items of a
-- run that needs complete_task's special handling (a non-array output for a step feeding
-- a map, which fails the run) go through complete_task itself, one by one; so do all
-- items while realtime broadcasts are enabled, whose events must come out in call order.

create function pgflow.complete_tasks(
  run_ids uuid[],
  step_slugs text[],
  task_indexes int[],
  outputs jsonb[]
)
returns table (run_id uuid, step_slug text, task_index int, status text)
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
  v_n int := coalesce(cardinality(complete_tasks.run_ids), 0);
  v_limit bigint;
  v_item record;
  v_slow_runs uuid[];
  v_done_run_ids uuid[];
  v_done_step_slugs text[];
  v_done_outputs jsonb[];
  v_flow record;
  v_steps_run_ids uuid[];
  v_steps_slugs text[];
  v_cascade_runs uuid[];
  v_plain_runs uuid[];
  v_settle_runs uuid[];
  v_run_id uuid;
begin
  -- VALIDATE: four arrays of one length, no NULL key, every output within the size limit
  -- (an oversized one raises for the whole call, which then writes nothing).
  if coalesce(cardinality(complete_tasks.step_slugs), 0) <> v_n
     or coalesce(cardinality(complete_tasks.task_indexes), 0) <> v_n
     or coalesce(cardinality(complete_tasks.outputs), 0) <> v_n then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('complete_tasks: run_ids, step_slugs, task_indexes and outputs must have '
                       'the same length (got %s, %s, %s and %s)',
                       v_n, coalesce(cardinality(complete_tasks.step_slugs), 0),
                       coalesce(cardinality(complete_tasks.task_indexes), 0),
                       coalesce(cardinality(complete_tasks.outputs), 0));
  end if;
  if v_n = 0 then
    return;
  end if;
  if array_position(complete_tasks.run_ids, null) is not null
     or array_position(complete_tasks.step_slugs, null) is not null
     or array_position(complete_tasks.task_indexes, null) is not null then
    raise exception using
      errcode = 'null_value_not_allowed',
      message = 'complete_tasks: run_ids, step_slugs and task_indexes may not contain NULL';
  end if;
  v_limit := pgflow._max_payload_bytes();
  for v_item in
    select u.run_id, u.step_slug, u.task_index, u.output
    from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes,
                complete_tasks.outputs) as u (run_id, step_slug, task_index, output)
    where pg_column_size(u.output) > v_limit
    limit 1
  loop
    perform pgflow._check_payload_size(v_item.output, format('Output of task %s[%s] of run %s',
      v_item.step_slug, v_item.task_index, v_item.run_id));
  end loop;

  -- LOCK: runs, then step_states, then step_tasks (the order of every transition), each in
  -- key order so that concurrent batches cannot deadlock.
  perform 1 from pgflow.runs as r
  where r.run_id = any(complete_tasks.run_ids)
  order by r.run_id
  for update;

  perform 1
  from pgflow.step_states as ss
  join unnest(complete_tasks.run_ids, complete_tasks.step_slugs) as k (run_id, step_slug)
    on ss.run_id = k.run_id and ss.step_slug = k.step_slug
  order by ss.run_id, ss.step_slug
  for update of ss;

  perform 1
  from pgflow.step_tasks as t
  join unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes)
    as k (run_id, step_slug, task_index)
    on t.run_id = k.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
  order by t.run_id, t.step_slug, t.task_index
  for update of t;

  -- Runs complete_task must take item by item: one where a single step that feeds a map
  -- step produced something other than an array (the run fails with TYPE_VIOLATION), and
  -- one with several items whose flow has conditions (a condition may fail the run after
  -- the first item, making the next ones no-ops).
  select array_agg(distinct u.run_id) into v_slow_runs
  from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes,
              complete_tasks.outputs) as u (run_id, step_slug, task_index, output)
  join pgflow.runs as r on r.run_id = u.run_id
  join pgflow.steps as s on s.flow_slug = r.flow_slug and s.step_slug = u.step_slug
  where (
      s.step_type = 'single'
      and jsonb_typeof(u.output) is distinct from 'array'
      and exists (
        select 1
        from pgflow.deps as d
        join pgflow.steps as cs on cs.flow_slug = d.flow_slug and cs.step_slug = d.step_slug
        where d.flow_slug = s.flow_slug and d.dep_slug = s.step_slug and cs.step_type = 'map'
      )
    )
    or (
      exists (
        select 1 from pgflow.steps as cs
        where cs.flow_slug = r.flow_slug
          and (cs.required_input_pattern is not null or cs.forbidden_input_pattern is not null)
      )
      and exists (
        select 1
        from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes)
          as o (run_id, step_slug, task_index)
        where o.run_id = u.run_id and (o.step_slug, o.task_index) <> (u.step_slug, u.task_index)
      )
    );
  v_slow_runs := coalesce(v_slow_runs, '{}'::uuid[]);
  -- Realtime on: every run item by item, so events keep their per-call order.
  if pgflow._realtime_enabled() then
    v_slow_runs := array(select distinct u.run_id from unnest(complete_tasks.run_ids) as u (run_id));
  end if;

  -- MUTATE 1: tasks. Completed only when the run has not failed, the step is started and
  -- the task is started (a repeated item completes once, with its first output).
  with items as (
    select distinct on (u.run_id, u.step_slug, u.task_index)
      u.run_id, u.step_slug, u.task_index, u.output
    from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes,
                complete_tasks.outputs) with ordinality as u (run_id, step_slug, task_index, output, ord)
    where u.run_id <> all(v_slow_runs)
    order by u.run_id, u.step_slug, u.task_index, u.ord
  ),
  done as (
    update pgflow.step_tasks as t
    set status = 'completed',
        completed_at = now(),
        output = i.output
    from items as i, pgflow.runs as r, pgflow.step_states as ss
    where t.run_id = i.run_id and t.step_slug = i.step_slug and t.task_index = i.task_index
      and t.status = 'started'
      and r.run_id = i.run_id and r.status <> 'failed'
      and ss.run_id = i.run_id and ss.step_slug = i.step_slug and ss.status = 'started'
    returning t.run_id, t.step_slug, t.output
  )
  select array_agg(d.run_id), array_agg(d.step_slug), array_agg(d.output)
  into v_done_run_ids, v_done_step_slugs, v_done_outputs
  from done as d;

  -- MUTATE 2: the messages of completed tasks, and of tasks whose step is no longer started
  -- (late reports after a skip or failure), go to the archive: one call per flow.
  for v_flow in
    select t.flow_slug, array_agg(t.message_id order by t.message_id) as msg_ids
    from (
      select distinct u.run_id, u.step_slug, u.task_index
      from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes)
        as u (run_id, step_slug, task_index)
      where u.run_id <> all(v_slow_runs)
    ) as k
    join pgflow.step_tasks as t
      on t.run_id = k.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
    join pgflow.runs as r on r.run_id = k.run_id
    join pgflow.step_states as ss on ss.run_id = k.run_id and ss.step_slug = k.step_slug
    where t.message_id is not null
      and r.status <> 'failed'
      and (ss.status <> 'started' or t.status = 'completed')
    group by t.flow_slug
  loop
    perform pgmq.archive(v_flow.flow_slug, v_flow.msg_ids);
  end loop;

  if v_done_run_ids is not null then
    -- MUTATE 3: steps. Each loses its completed tasks; the last one completes it with its
    -- output (a single step: the task output; a map: the task outputs in task_index order).
    with per_step as (
      select d.run_id, d.step_slug, count(*)::int as n, (array_agg(d.output))[1] as output
      from unnest(v_done_run_ids, v_done_step_slugs, v_done_outputs) as d (run_id, step_slug, output)
      group by d.run_id, d.step_slug
    ),
    completed as (
      update pgflow.step_states as ss
      set remaining_tasks = ss.remaining_tasks - p.n,
          status = case when ss.remaining_tasks = p.n then 'completed' else ss.status end,
          completed_at = case when ss.remaining_tasks = p.n then now() end,
          output = case
            when ss.remaining_tasks <> p.n then null
            when s.step_type = 'map' then (
              select jsonb_agg(t.output order by t.task_index)
              from pgflow.step_tasks as t
              where t.run_id = ss.run_id and t.step_slug = ss.step_slug
            )
            else p.output
          end
      from per_step as p, pgflow.steps as s
      where ss.run_id = p.run_id and ss.step_slug = p.step_slug
        and s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
      returning ss.run_id, ss.step_slug, ss.status
    )
    select array_agg(c.run_id), array_agg(c.step_slug)
    into v_steps_run_ids, v_steps_slugs
    from completed as c
    where c.status = 'completed';
  end if;

  if v_steps_run_ids is not null then
    -- MUTATE 4: dependents of completed steps lose those pending parents; a dependent map
    -- learns its task count (parent map: its task count; single parent: its array length).
    with parents as (
      select ss.run_id, ss.flow_slug, ss.step_slug, ss.initial_tasks, ss.output, s.step_type
      from unnest(v_steps_run_ids, v_steps_slugs) as c (run_id, step_slug)
      join pgflow.step_states as ss on ss.run_id = c.run_id and ss.step_slug = c.step_slug
      join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
    ),
    edges as (
      select p.run_id, p.flow_slug, d.step_slug as child_slug, count(*)::int as n,
        max(case
          when p.step_type = 'map' then p.initial_tasks
          when jsonb_typeof(p.output) = 'array' then jsonb_array_length(p.output)
        end) as parent_tasks
      from parents as p
      join pgflow.deps as d on d.flow_slug = p.flow_slug and d.dep_slug = p.step_slug
      group by p.run_id, p.flow_slug, d.step_slug
    ),
    released as (
      update pgflow.step_states as ss
      set remaining_deps = ss.remaining_deps - e.n,
          initial_tasks = case
            when cs.step_type = 'map' and ss.initial_tasks is null then e.parent_tasks
            else ss.initial_tasks
          end
      from edges as e, pgflow.steps as cs
      where ss.run_id = e.run_id and ss.step_slug = e.child_slug and ss.status = 'created'
        and cs.flow_slug = e.flow_slug and cs.step_slug = e.child_slug
      returning ss.run_id
    )
    select array_agg(distinct rl.run_id order by rl.run_id) into v_cascade_runs from released as rl;

    -- MUTATE 5: runs lose their completed steps in one statement; a run left with none
    -- (it released no dependent) completes in it, with its completed leaf steps as output.
    with per_run as (
      select c.run_id, count(*)::int as n
      from unnest(v_steps_run_ids) as c (run_id)
      group by c.run_id
    )
    update pgflow.runs as r
    set remaining_steps = r.remaining_steps - p.n,
        status = case when r.remaining_steps = p.n and r.status = 'started' then 'completed' else r.status end,
        completed_at = case when r.remaining_steps = p.n and r.status = 'started' then now() else r.completed_at end,
        output = case
          when r.remaining_steps = p.n and r.status = 'started' then (
            select jsonb_object_agg(ss.step_slug, ss.output)
            from pgflow.step_states as ss
            where ss.run_id = r.run_id
              and ss.status = 'completed'
              and not exists (
                select 1 from pgflow.deps as d
                where d.flow_slug = ss.flow_slug and d.dep_slug = ss.step_slug
              )
          )
          else r.output
        end
    from per_run as p
    where r.run_id = p.run_id;

    if v_cascade_runs is not null then
      -- CASCADE: runs with released dependents. Plain ones (no condition in the flow, no
      -- ready step without tasks) only start what is ready, all together; the others
      -- settle run by run (conditions, empty maps) as after a single complete_task.
      select array_agg(k.run_id order by k.run_id) filter (where k.plain),
             array_agg(k.run_id order by k.run_id) filter (where not k.plain)
      into v_plain_runs, v_settle_runs
      from (
        select c.run_id,
          not exists (
            select 1 from pgflow.steps as s
            where s.flow_slug = r.flow_slug
              and (s.required_input_pattern is not null or s.forbidden_input_pattern is not null)
          )
          and not exists (
            select 1 from pgflow.step_states as ss
            where ss.run_id = c.run_id and ss.status = 'created' and ss.remaining_deps = 0
              and not coalesce(ss.initial_tasks > 0, false)
          ) as plain
        from unnest(v_cascade_runs) as c (run_id)
        join pgflow.runs as r on r.run_id = c.run_id
      ) as k;

      if v_plain_runs is not null then
        perform pgflow._start_ready_steps_of_runs(v_plain_runs);
      end if;
      foreach v_run_id in array coalesce(v_settle_runs, '{}'::uuid[]) loop
        if pgflow._cascade(v_run_id) then
          perform pgflow.start_ready_steps(v_run_id);
          perform pgflow.maybe_complete_run(v_run_id);
        end if;
      end loop;
    end if;
  end if;

  -- Runs set aside above: complete_task, item by item in array order (locks already held).
  if cardinality(v_slow_runs) > 0 then
    for v_item in
      select u.run_id, u.step_slug, u.task_index, u.output
      from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes,
                  complete_tasks.outputs) with ordinality as u (run_id, step_slug, task_index, output, ord)
      where u.run_id = any(v_slow_runs)
      order by u.ord
    loop
      perform pgflow.complete_task(v_item.run_id, v_item.step_slug, v_item.task_index, v_item.output);
    end loop;
  end if;

  -- RETURN: one row per item naming an existing task, in array order, as it is now.
  return query
  select t.run_id, t.step_slug, t.task_index, t.status
  from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes)
    with ordinality as u (run_id, step_slug, task_index, ord)
  join pgflow.step_tasks as t
    on t.run_id = u.run_id and t.step_slug = u.step_slug and t.task_index = u.task_index
  order by u.ord;
end;
$$;

comment on function pgflow.complete_tasks(uuid[], text[], int[], jsonb[]) is
'Batch form of complete_task for group commit: item i is task (run_ids[i], step_slugs[i],
task_indexes[i]) with output outputs[i] (jsonb, stored as given). The outcome is that of
calling complete_task for each item in array order within one transaction, guards
included (a failed run, a step no longer started or a task not started change nothing
but the archive, exactly as there; a task named twice completes once, with its first
output), with a fixed number of statements per call: tasks, steps, dependents and runs
are updated set-based and messages archived with one pgmq.archive per flow. Locks runs,
then step_states, then step_tasks, each in key order. Items of a run in which a single
step feeding a map produced a non-array go through complete_task one by one (it fails
the run with TYPE_VIOLATION), and so does every item while realtime.send exists, so
broadcasts keep their order. Returns (run_id, step_slug, task_index, status) for each item
naming an existing task, in array order, with the status after the call; unknown tasks
are left out. Raises invalid_parameter_value for arrays of different lengths,
null_value_not_allowed for a NULL key, and program_limit_exceeded when any output is
larger than pgflow.max_payload_bytes (default 16 MiB): the whole call then changes
nothing (report those tasks with complete_task / fail_task). Empty arrays return nothing.
pgflow-py extension (upstream workers call complete_task once per task).';
