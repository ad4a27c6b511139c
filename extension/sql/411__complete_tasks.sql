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
  v_done int[];
  v_archive_flow_slugs text[];
  v_archive_msg_ids bigint[];
  v_steps_run_ids uuid[];
  v_steps_slugs text[];
  v_steps_ords int[];
  v_steps_maps boolean;
  v_previous text[];
begin
  -- GUARD and MUTATE 1 and 2, in one statement. GUARD: why each item (position i of the
  -- arrays) changes nothing, from the rows as they are now (the caller holds their runs);
  -- NULL when it completes its task. Written from the items outward (LEFT JOINs), so the
  -- plan cannot start from an index of step_tasks whose statistics are stale (a partial
  -- index on started tasks analyzed while every task was queued was read whole at each
  -- call). MUTATE 1: the tasks of items without a reason complete (found again by ctid).
  -- MUTATE 2: each step loses its completed tasks; the last one completes it (output: the
  -- task output; a map's is set by _complete_steps, which sees these task updates).
  -- v_done holds the positions of the completed items, v_archive* the messages to archive
  -- (aligned with each other), v_steps* the completed steps in report order (v_steps_maps:
  -- whether one of them is a map step).
  with items as (
    select u.pos, u.output, tk.ctid as task_ctid, tk.status, tk.flow_slug, tk.message_id,
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
  ),
  per_step as (
    select d.run_id, d.step_slug, count(*)::int as n, (array_agg(d.output))[1] as output,
      min(coalesce(_complete_tasks.ords[d.pos], d.pos))::int as first_ord
    from done as d
    group by d.run_id, d.step_slug
  ),
  steps_done as (
    update pgflow.step_states as ss
    set remaining_tasks = ss.remaining_tasks - p.n,
        status = case when ss.remaining_tasks = p.n then 'completed' else ss.status end,
        completed_at = case when ss.remaining_tasks = p.n then v_now end,
        -- (a map's is replaced by _complete_steps, in this call)
        output = case when ss.remaining_tasks = p.n then p.output end
    from per_step as p
    where ss.run_id = p.run_id and ss.step_slug = p.step_slug
    returning ss.run_id, ss.flow_slug, ss.step_slug, ss.status, p.first_ord
  )
  select i.*, d.*, c.*
  into v_reasons, v_statuses, v_archive_flow_slugs, v_archive_msg_ids, v_done,
       v_steps_run_ids, v_steps_slugs, v_steps_ords, v_steps_maps
  from (select array_agg(k.reason order by k.pos), array_agg(k.status order by k.pos) from items as k) as i
  cross join (
    -- (the messages to archive: those of the tasks completed here, and of late reports for
    -- a step no longer started, skipped or failed. An item judged completable whose task
    -- the UPDATE did not find, a row changed by another transaction since this
    -- statement's snapshot, keeps its message and is answered task_not_started.)
    select array_agg(a.flow_slug), array_agg(a.message_id), array_agg(a.pos) filter (where a.done)
    from (select d.pos, d.flow_slug, d.message_id, true as done from done as d
          union all
          select k.pos, k.flow_slug, k.message_id, false from items as k
          where k.reason = 'step_not_started') as a
  ) as d
  cross join (
    select array_agg(c.run_id order by c.first_ord), array_agg(c.step_slug order by c.first_ord),
           array_agg(c.first_ord order by c.first_ord), bool_or(s.step_type = 'map')
    from steps_done as c
    -- (the step type of completed steps only: a task that counts off its step looks up nothing)
    join pgflow.steps as s on s.flow_slug = c.flow_slug and s.step_slug = c.step_slug
    where c.status = 'completed'
  ) as c;

  -- The events this call causes (steps completed, type violations) name the reporting
  -- worker (all reports of a call come from one) unless the caller said who acts; a task
  -- that only counts off its step causes none, and pays nothing for it.
  if v_steps_run_ids is not null or 'type_violation' = any(v_reasons) then
    v_previous := pgflow._set_worker_actor(_complete_tasks.run_ids, _complete_tasks.step_slugs,
                                           _complete_tasks.task_indexes);
  end if;

  -- MUTATE 0: a single step feeding a map step produced a non-array: its task and step
  -- fail, and so does the run, whatever max_attempts and when_exhausted say. (Each such
  -- item is its run's only item here: complete_tasks sends such runs' reports one at a
  -- time.)
  if 'type_violation' = any(v_reasons) then
    select array_agg(coalesce(f.status, v_statuses[i]) order by i), array_agg(f.detail order by i)
    into v_statuses, v_details
    from generate_subscripts(v_reasons, 1) as i
    left join pgflow._fail_type_violations(_complete_tasks.run_ids, _complete_tasks.step_slugs,
      _complete_tasks.task_indexes, _complete_tasks.outputs, array_positions(v_reasons, 'type_violation')) as f
      on f.pos = i;
  end if;

  -- MUTATE 3: the messages go to the archive, one pgmq.archive per flow (a batch usually
  -- has one).
  if v_archive_flow_slugs[1] = all(v_archive_flow_slugs) then
    perform pgmq.archive(v_archive_flow_slugs[1], array_remove(v_archive_msg_ids, null));
  elsif v_archive_flow_slugs is not null then
    perform pgmq.archive(m.flow_slug, array_agg(distinct m.msg_id))
    from unnest(v_archive_flow_slugs, v_archive_msg_ids) as m (flow_slug, msg_id)
    where m.msg_id is not null
    group by m.flow_slug;
  end if;

  -- SLOTS: a completed task of a step with a max_in_flight frees a slot for a held message.
  if v_done is not null and exists (select 1 from pgflow.steps as s
      where s.flow_slug = any(v_archive_flow_slugs) and s.opt_max_in_flight is not null) then
    perform pgflow._release_throttled_messages(f.flow_slug, null)
    from (select distinct m.flow_slug from unnest(v_archive_flow_slugs) as m (flow_slug) order by 1) as f;
  end if;

  -- CASCADE: completed steps get their map outputs and events, release their dependents,
  -- and their runs move forward.
  if v_steps_run_ids is not null then
    perform pgflow._complete_steps(v_steps_run_ids, v_steps_slugs, v_steps_ords, v_steps_maps);
  end if;
  if v_previous is not null then
    perform pgflow._set_actor(v_previous[1], v_previous[2]);
  end if;

  -- RETURN: one row per item, in item order, with its task's status now (an item whose task
  -- was unknown when judged may name a task that an earlier item's cascade has created
  -- since: its step started).
  return query
  select coalesce(_complete_tasks.ords[i], i)::int,
    case when i = any(v_done) then 'completed' else coalesce(v_statuses[i], (
      select t.status from pgflow.step_tasks as t where t.run_id = _complete_tasks.run_ids[i]
        and t.step_slug = _complete_tasks.step_slugs[i] and t.task_index = _complete_tasks.task_indexes[i]))
    end,
    case
      when i = any(v_done) then 'completed'
      when v_reasons[i] = 'type_violation' then 'failed'
      when v_reasons[i] = 'payload_too_large' then 'refused'
      else 'ignored'
    end,
    case when i = any(v_done) then null else coalesce(v_reasons[i], 'task_not_started') end,
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
holds the runs named (_lock_task_reports). pgflow-py internal.';
