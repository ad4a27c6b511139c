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
returns table (ord int, status text, outcome text, reason text, detail text)
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_limit bigint := pgflow._max_payload_bytes();
  v_reasons text[];
  v_statuses text[];
  v_details text[];
  v_item record;
  v_flow record;
  v_done int[];
  v_done_run_ids uuid[];
  v_done_step_slugs text[];
  v_done_outputs jsonb[];
  v_archive_flow_slugs text[];
  v_archive_msg_ids bigint[];
begin
  -- GUARD and MUTATE 1, in one statement. GUARD: why each item (position i of the arrays)
  -- changes nothing, from the rows as they are now (the caller holds their locks); NULL
  -- when it completes its task. Written from the items outward (LEFT JOINs), so the plan
  -- cannot start from an index of step_tasks whose statistics are stale (a partial index on
  -- started tasks analyzed while every task was queued was read whole at each call).
  -- MUTATE 1: the tasks of items without a reason complete (found again by ctid). The
  -- v_done* and v_archive* arrays are aligned with each other (v_done holds the items'
  -- positions), in no particular order.
  with items as (
    select u.pos, u.output, tk.ctid as task_ctid, tk.status,
      case
        when tk.run_id is null then 'unknown_task'
        when u.attempt is not null and u.attempt between 1 and tk.attempts_count - 1 then 'stale_attempt'
        when u.attempt is not null and u.attempt is distinct from tk.attempts_count then 'unknown_attempt'
        when r.status = 'failed' then 'run_failed'
        when r.status = 'cancelled' then 'run_cancelled'
        when r.status = 'expired' then 'run_expired'
        when tk.status = 'cancelled' then 'task_cancelled'
        when ss.status <> 'started' then 'step_not_started'
        when tk.status <> 'started' then 'task_not_started'
        when pg_column_size(u.output) > v_limit then 'payload_too_large'
        -- (a single step has one task: map steps of many tasks never pay for the lookup)
        when ss.initial_tasks = 1 and jsonb_typeof(u.output) is distinct from 'array'
             and pgflow._map_step_fed_by(tk.flow_slug, tk.step_slug) is not null then 'type_violation'
        when r.status not in ('started', 'paused') then 'run_failed'
      end as reason
    from unnest(_complete_tasks.run_ids, _complete_tasks.step_slugs, _complete_tasks.task_indexes,
                _complete_tasks.outputs, _complete_tasks.attempts)
      with ordinality as u (run_id, step_slug, task_index, output, attempt, pos)
    left join pgflow.step_tasks as tk
      on tk.run_id = u.run_id and tk.step_slug = u.step_slug and tk.task_index = u.task_index
    left join pgflow.runs as r on r.run_id = tk.run_id
    left join pgflow.step_states as ss on ss.run_id = tk.run_id and ss.step_slug = tk.step_slug
  ),
  done as (
    update pgflow.step_tasks as t
    set status = 'completed',
        completed_at = v_now,
        output = k.output
    from items as k
    where k.reason is null and t.ctid = k.task_ctid
    returning k.pos, t.run_id, t.step_slug, t.output, t.flow_slug, t.message_id
  )
  select i.reasons, i.statuses, d.*
  into v_reasons, v_statuses, v_done, v_done_run_ids, v_done_step_slugs, v_done_outputs,
       v_archive_flow_slugs, v_archive_msg_ids
  from (
    select array_agg(k.reason order by k.pos) as reasons, array_agg(k.status order by k.pos) as statuses
    from items as k
  ) as i
  cross join (
    select array_agg(d.pos), array_agg(d.run_id), array_agg(d.step_slug), array_agg(d.output),
           array_agg(d.flow_slug), array_agg(d.message_id)
    from done as d
  ) as d;

  -- MUTATE 0: a single step feeding a map step produced a non-array: its task and step
  -- fail, and so does the run, whatever max_attempts and when_exhausted say. (Each such
  -- item is its run's only item here: complete_tasks sends such runs' reports one at a
  -- time.)
  if 'type_violation' = any(v_reasons) then
    for v_item in
      select f.* from pgflow._fail_type_violations(_complete_tasks.run_ids, _complete_tasks.step_slugs,
        _complete_tasks.task_indexes, _complete_tasks.outputs,
        array(select i from generate_subscripts(v_reasons, 1) as i where v_reasons[i] = 'type_violation')) as f
    loop
      v_statuses[v_item.pos] := v_item.status;
      v_details[v_item.pos] := v_item.detail;
    end loop;
  end if;

  -- MUTATE 2: messages of completed tasks, and of late reports for a step no longer started
  -- (skipped, failed), go to the archive: one pgmq.archive per flow (a batch usually has one).
  if 'step_not_started' = any(v_reasons) then
    select v_archive_flow_slugs || array_agg(t.flow_slug), v_archive_msg_ids || array_agg(t.message_id)
    into v_archive_flow_slugs, v_archive_msg_ids
    from unnest(_complete_tasks.run_ids, _complete_tasks.step_slugs, _complete_tasks.task_indexes)
      with ordinality as u (run_id, step_slug, task_index, pos)
    join pgflow.step_tasks as t
      on t.run_id = u.run_id and t.step_slug = u.step_slug and t.task_index = u.task_index
    where v_reasons[u.pos] = 'step_not_started';
  end if;
  if v_archive_flow_slugs[1] = all(v_archive_flow_slugs) then
    perform pgmq.archive(v_archive_flow_slugs[1], array_remove(v_archive_msg_ids, null));
  elsif v_archive_flow_slugs is not null then
    for v_flow in
      select m.flow_slug, array_agg(distinct m.msg_id) as msg_ids
      from unnest(v_archive_flow_slugs, v_archive_msg_ids) as m (flow_slug, msg_id)
      where m.msg_id is not null
      group by m.flow_slug
    loop
      perform pgmq.archive(v_flow.flow_slug, v_flow.msg_ids);
    end loop;
  end if;

  -- SLOTS: a completed task of a step with a max_in_flight frees a slot for a held message.
  if v_done is not null and exists (
    select 1 from pgflow.steps as s
    where s.flow_slug = any(v_archive_flow_slugs) and s.opt_max_in_flight is not null
  ) then
    perform pgflow._release_throttled_messages(f.flow_slug, null)
    from (select distinct m.flow_slug from unnest(v_archive_flow_slugs) as m (flow_slug) order by 1) as f;
  end if;

  -- MUTATE 3 and CASCADE: steps lose their completed tasks, completed steps release
  -- their dependents, runs move forward.
  if v_done is not null then
    perform pgflow._complete_steps(v_done_run_ids, v_done_step_slugs, v_done_outputs, v_done);
  end if;

  -- An item whose task was unknown when judged may name a task that an earlier item's
  -- cascade has created since (its step started): read the statuses again.
  if v_done is not null and array_position(v_statuses, null) is not null then
    select array_agg(coalesce(v_statuses[u.pos], t.status) order by u.pos) into v_statuses
    from unnest(_complete_tasks.run_ids, _complete_tasks.step_slugs, _complete_tasks.task_indexes)
      with ordinality as u (run_id, step_slug, task_index, pos)
    left join pgflow.step_tasks as t
      on t.run_id = u.run_id and t.step_slug = u.step_slug and t.task_index = u.task_index;
  end if;

  -- RETURN: one row per item, in item order, with its task's status now.
  return query
  select coalesce(_complete_tasks.ords[i], i)::int,
    case when i = any(v_done) then 'completed' else v_statuses[i] end,
    case
      when i = any(v_done) then 'completed'
      when v_reasons[i] = 'type_violation' then 'failed'
      when v_reasons[i] = 'payload_too_large' then 'refused'
      else 'ignored'
    end,
    case
      when i = any(v_done) then null
      else coalesce(v_reasons[i], 'run_failed')
    end,
    case
      when v_reasons[i] = 'payload_too_large' then pgflow._payload_size_error(_complete_tasks.outputs[i],
        format('Output of task %s[%s] of run %s', _complete_tasks.step_slugs[i],
               _complete_tasks.task_indexes[i], _complete_tasks.run_ids[i]))
      else v_details[i]
    end
  from generate_subscripts(_complete_tasks.run_ids, 1) as i;
end;
$$;

comment on function pgflow._complete_tasks(int[], uuid[], text[], int[], jsonb[], int[]) is
'Applies reports that may be applied together, each naming a different task (complete_tasks
sends each run''s reports here either all at once or one at a time, and a task''s repeats
in later calls): item i completes task (run_ids[i], step_slugs[i], task_indexes[i]) with
outputs[i] unless attempts[i] (NULL: no fence) is not the task''s attempts_count, the run
failed, or the step or the task is not started; an output larger than
pgflow.max_payload_bytes is refused (nothing written); a non-array output of a single step
feeding a map (_map_step_fed_by) fails the task, the step and the run ([TYPE_VIOLATION];
complete_tasks sends such a report alone for its run, as it does every report of a run
whose reports'' order matters). Tasks and the
archive (one pgmq.archive per flow) are updated set-based, then steps, dependents and runs
through _complete_steps. Returns per item, in item order: ord (ords[i], or i when ords is
NULL), status (the task''s status after the call, NULL for an unknown task), outcome,
reason and detail: completed (reason NULL), failed (type_violation; detail: the task''s
error), refused (payload_too_large; detail: "Output of task <step>[<i>] of run <id> is <n>
bytes, over the limit of <limit> bytes ...") or ignored (unknown_task, stale_attempt,
unknown_attempt, run_failed, run_cancelled, task_cancelled, step_not_started,
task_not_started; detail NULL). The caller
holds the locks of the runs, step_states and step_tasks named (lock order run ->
step_state -> step_task). pgflow-py internal.';
