-- _complete_tasks: the set-based body of complete_tasks for reports that may be applied
-- together (the one implementation of "a task completes" and what follows from it).

create function pgflow._complete_tasks(
  ords int[],
  run_ids uuid[],
  step_slugs text[],
  task_indexes int[],
  outputs jsonb[],
  attempts int[]
)
returns table (ord int, outcome text, reason text, detail text)
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_limit bigint := pgflow._max_payload_bytes();
  v_reasons text[];
  v_item record;
  v_flow record;
  v_done int[];
  v_done_run_ids uuid[];
  v_done_step_slugs text[];
  v_done_outputs jsonb[];
begin
  -- GUARD: why each item (position i of the arrays) changes nothing, from the rows as they
  -- are now (the caller holds their locks); NULL when it completes its task. A task named
  -- again after an item that completed it (or failed it by a type violation) is not
  -- started any more: the later item changes nothing (task_not_started).
  select array_agg(g.reason order by g.pos) into v_reasons
  from (
    select c.pos,
      case
        when coalesce(c.base_reason, 'payload_too_large') in ('payload_too_large', 'type_violation')
             and coalesce(bool_or(coalesce(c.base_reason, 'type_violation') = 'type_violation') over (
               partition by c.run_id, c.step_slug, c.task_index order by c.pos
               rows between unbounded preceding and 1 preceding), false) then 'task_not_started'
        else c.base_reason
      end as reason
    from (
      select u.pos, u.run_id, u.step_slug, u.task_index,
        case
          when t.run_id is null then 'unknown_task'
          when u.attempt is not null and u.attempt between 1 and t.attempts_count - 1 then 'stale_attempt'
          when u.attempt is not null and u.attempt is distinct from t.attempts_count then 'unknown_attempt'
          when r.status = 'failed' then 'run_failed'
          when ss.status <> 'started' then 'step_not_started'
          when t.status <> 'started' then 'task_not_started'
          when pg_column_size(u.output) > v_limit then 'payload_too_large'
          when s.step_type = 'single'
               and jsonb_typeof(u.output) is distinct from 'array'
               and exists (
                 select 1
                 from pgflow.deps as d
                 join pgflow.steps as cs on cs.flow_slug = d.flow_slug and cs.step_slug = d.step_slug
                 where d.flow_slug = s.flow_slug and d.dep_slug = s.step_slug and cs.step_type = 'map'
               ) then 'type_violation'
        end as base_reason
      from unnest(_complete_tasks.run_ids, _complete_tasks.step_slugs, _complete_tasks.task_indexes,
                  _complete_tasks.outputs, _complete_tasks.attempts)
        with ordinality as u (run_id, step_slug, task_index, output, attempt, pos)
      left join pgflow.step_tasks as t
        on t.run_id = u.run_id and t.step_slug = u.step_slug and t.task_index = u.task_index
      left join pgflow.runs as r on r.run_id = t.run_id
      left join pgflow.step_states as ss on ss.run_id = t.run_id and ss.step_slug = t.step_slug
      left join pgflow.steps as s on s.flow_slug = t.flow_slug and s.step_slug = t.step_slug
    ) as c
  ) as g;

  -- MUTATE 0: a single step feeding a map step produced a non-array: its task and step
  -- fail, and so does the run, whatever max_attempts and when_exhausted say.
  if 'type_violation' = any(v_reasons) then
    for v_item in
      select t as task, u.output,
        (select cs.step_slug
         from pgflow.deps as d
         join pgflow.steps as cs on cs.flow_slug = d.flow_slug and cs.step_slug = d.step_slug
         where d.flow_slug = t.flow_slug and d.dep_slug = t.step_slug and cs.step_type = 'map'
         order by cs.step_index
         limit 1) as map_step_slug
      from unnest(_complete_tasks.run_ids, _complete_tasks.step_slugs, _complete_tasks.task_indexes,
                  _complete_tasks.outputs) with ordinality as u (run_id, step_slug, task_index, output, pos)
      join pgflow.step_tasks as t
        on t.run_id = u.run_id and t.step_slug = u.step_slug and t.task_index = u.task_index
      where v_reasons[u.pos] = 'type_violation'
      order by u.pos
    loop
      perform pgflow._fail_task_with_type_violation(v_item.task, v_item.map_step_slug, v_item.output,
                                                    coalesce(jsonb_typeof(v_item.output), 'null'));
    end loop;
  end if;

  -- MUTATE 1: tasks. The WHERE repeats the guards, so an item of a run failed by MUTATE 0
  -- changes nothing.
  with done as (
    update pgflow.step_tasks as t
    set status = 'completed',
        completed_at = now(),
        output = u.output
    from unnest(_complete_tasks.run_ids, _complete_tasks.step_slugs, _complete_tasks.task_indexes,
                _complete_tasks.outputs) with ordinality as u (run_id, step_slug, task_index, output, pos),
      pgflow.runs as r, pgflow.step_states as ss
    where v_reasons[u.pos] is null
      and t.run_id = u.run_id and t.step_slug = u.step_slug and t.task_index = u.task_index
      and t.status = 'started'
      and r.run_id = u.run_id and r.status is not distinct from 'started'
      and ss.run_id = u.run_id and ss.step_slug = u.step_slug and ss.status = 'started'
    returning u.pos, t.run_id, t.step_slug, t.output
  )
  select array_agg(d.pos order by d.pos), array_agg(d.run_id order by d.pos),
         array_agg(d.step_slug order by d.pos), array_agg(d.output order by d.pos)
  into v_done, v_done_run_ids, v_done_step_slugs, v_done_outputs
  from done as d;

  -- MUTATE 2: messages of completed tasks, and of late reports for a step no longer started
  -- (skipped, failed), go to the archive: one pgmq.archive per flow.
  for v_flow in
    select t.flow_slug, array_agg(distinct t.message_id) as msg_ids
    from unnest(_complete_tasks.run_ids, _complete_tasks.step_slugs, _complete_tasks.task_indexes)
      with ordinality as u (run_id, step_slug, task_index, pos)
    join pgflow.step_tasks as t
      on t.run_id = u.run_id and t.step_slug = u.step_slug and t.task_index = u.task_index
    where t.message_id is not null
      and (u.pos = any(v_done) or v_reasons[u.pos] = 'step_not_started')
    group by t.flow_slug
  loop
    perform pgmq.archive(v_flow.flow_slug, v_flow.msg_ids);
  end loop;

  -- MUTATE 3 and CASCADE: steps lose their completed tasks, completed steps release
  -- their dependents, runs move forward.
  if v_done is not null then
    perform pgflow._complete_steps(v_done_run_ids, v_done_step_slugs, v_done_outputs);
  end if;

  -- RETURN: one row per item.
  return query
  select _complete_tasks.ords[u.pos]::int,
    case
      when u.pos = any(v_done) then 'completed'
      when v_reasons[u.pos] = 'type_violation' then 'failed'
      when v_reasons[u.pos] = 'payload_too_large' then 'refused'
      else 'ignored'
    end,
    case
      when u.pos = any(v_done) then null
      else coalesce(v_reasons[u.pos], 'run_failed')
    end,
    case v_reasons[u.pos]
      when 'payload_too_large' then pgflow._payload_size_error(_complete_tasks.outputs[u.pos],
        format('Output of task %s[%s] of run %s', _complete_tasks.step_slugs[u.pos],
               _complete_tasks.task_indexes[u.pos], _complete_tasks.run_ids[u.pos]))
      when 'type_violation' then (
        select t.error_message from pgflow.step_tasks as t
        where t.run_id = _complete_tasks.run_ids[u.pos] and t.step_slug = _complete_tasks.step_slugs[u.pos]
          and t.task_index = _complete_tasks.task_indexes[u.pos])
    end
  from generate_subscripts(_complete_tasks.run_ids, 1) as u (pos)
  order by u.pos;
end;
$$;

comment on function pgflow._complete_tasks(int[], uuid[], text[], int[], jsonb[], int[]) is
'Applies reports that may be applied together (complete_tasks sends each run''s reports
here either all at once or one at a time): item i completes task (run_ids[i],
step_slugs[i], task_indexes[i]) with outputs[i] unless attempts[i] (NULL: no fence) is
not the task''s attempts_count, the run failed, the step or the task is not started, or
the task was named by an earlier item; an output larger than pgflow.max_payload_bytes is
refused (nothing written); a non-array output of a single step feeding a map fails the
task, the step and the run ([TYPE_VIOLATION]). Tasks and the archive (one pgmq.archive
per flow) are updated set-based, then steps, dependents and runs through _complete_steps. Returns (ord, outcome, reason, detail) per item with ord =
ords[i]: completed (reason NULL), failed (type_violation; detail: the task''s error),
refused (payload_too_large; detail: "Output of task <step>[<i>] of run <id> is <n> bytes,
over the limit of <limit> bytes ...") or ignored (unknown_task, stale_attempt, unknown_attempt,
run_failed, step_not_started, task_not_started; detail NULL). The caller holds the locks of the runs, step_states and step_tasks
named (lock order run -> step_state -> step_task). pgflow-py internal.';
