-- start_tasks: second phase of two-phase polling. Claims the tasks behind messages a
-- worker has read and returns each task with its handler input. The work is done by
-- _start_tasks, shared with read_and_start_tasks.

create function pgflow._start_tasks(
  flow_slug text,
  msg_ids bigint[],
  worker_id uuid,
  extend_lease boolean
)
returns setof pgflow.step_task_record
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run_ids uuid[];
  v_step_slugs text[];
  v_task_indexes int[];
  v_message_ids bigint[];
  v_vt_offsets int[];
  v_msg_ids bigint[] := _start_tasks.msg_ids;
  v_now timestamptz;
begin
  if v_msg_ids is null or cardinality(v_msg_ids) = 0 then
    return;
  end if;
  v_now := pgflow._now();
  -- THROTTLE: a step with a max_in_flight gets no more tasks started than it allows; the
  -- others are held (one probe of an index that is empty unless a step sets the option).
  if exists (select 1 from pgflow.steps as s
             where s.flow_slug = _start_tasks.flow_slug and s.opt_max_in_flight is not null) then
    v_msg_ids := pgflow._throttle_claims(_start_tasks.flow_slug, v_msg_ids);
  end if;

  -- MUTATE: only queued tasks of started steps in started runs are claimed; anything
  -- else (duplicate delivery, late message of a failed run or skipped step) is ignored.
  -- Written so that statistics cannot change the plan (with stale ones, e.g. analyzed
  -- while no task was queued, the indexes of queued tasks look empty, and a plan that read
  -- one whole at every claim looked free): each task is found from its message id
  -- (LATERAL, so the join cannot be turned around) through idx_step_tasks_message_id, the
  -- only index the conditions leave usable (`is not distinct from` matches neither the
  -- partial indexes on status nor idx_step_tasks_flow_run_step); its run's and
  -- step_state's status are looked up from the task. The tasks are updated by the ctid of
  -- the version locked here. SKIP LOCKED: a claim never waits.
  with claimable as (
    select c.task_ctid
    from unnest(v_msg_ids) as m (msg_id)
    cross join lateral (
      select t.ctid as task_ctid
      from pgflow.step_tasks as t
      where t.message_id = m.msg_id
        and t.flow_slug is not distinct from _start_tasks.flow_slug
        and t.status is not distinct from 'queued'
        and (select r.status from pgflow.runs as r where r.run_id = t.run_id)
            is not distinct from 'started'
        and (select ss.status from pgflow.step_states as ss
             where ss.run_id = t.run_id and ss.step_slug = t.step_slug) = 'started'
      for update of t skip locked
    ) as c
  ),
  started as (
    update pgflow.step_tasks as t
    set status = 'started',
        attempts_count = t.attempts_count + 1,
        -- The engine's time (pgflow._now()) counts from the transaction's start:
        -- read_and_start_tasks may claim a task queued by a transaction that began after it
        -- (and committed before its read), and started_at must not precede queued_at.
        started_at = greatest(v_now, t.queued_at),
        last_worker_id = _start_tasks.worker_id
    from claimable as c
    -- (is not distinct from: no index can serve it, so the plan finds each task by its
    -- ctid; with `= 'queued'` a plan made with stale statistics read every queued task
    -- through idx_step_tasks_queued and compared each with every claimed ctid)
    where t.ctid = c.task_ctid
      and t.status is not distinct from 'queued'
    returning t.run_id, t.step_slug, t.task_index, t.message_id, t.flow_slug
  )
  select
    array_agg(st.run_id order by st.message_id),
    array_agg(st.step_slug order by st.message_id),
    array_agg(st.task_index order by st.message_id),
    array_agg(st.message_id order by st.message_id),
    array_agg(coalesce(s.opt_timeout, f.opt_timeout) + 2 order by st.message_id)
  into v_run_ids, v_step_slugs, v_task_indexes, v_message_ids, v_vt_offsets
  from started as st
  join pgflow.steps as s on s.flow_slug = st.flow_slug and s.step_slug = st.step_slug
  join pgflow.flows as f on f.flow_slug = st.flow_slug;

  if v_message_ids is null then
    return;
  end if;

  -- The lease: each claimed message stays invisible for the task's timeout + 2 seconds.
  -- Done in this call, before returning, so no reader can see the message meanwhile
  -- (unless the caller read the messages with that lease already).
  if extend_lease then
    perform pgflow.set_vt_batch(_start_tasks.flow_slug, v_message_ids, v_vt_offsets);
  end if;

  -- RETURN: each task with its input.
  return query
  select
    _start_tasks.flow_slug,
    c.run_id,
    c.step_slug,
    case
      -- a map task's element was stored when its step started, in the chunk that starts
      -- at or before its index (map_task_inputs); tasks queued before 0.2.0 have none and
      -- read it from the array
      when s.step_type = 'map' then coalesce(
        (select mi.inputs -> (c.task_index - mi.first_index)
         from pgflow.map_task_inputs as mi
         where mi.run_id = c.run_id and mi.step_slug = c.step_slug and mi.first_index <= c.task_index
         order by mi.first_index desc
         limit 1),
        case when s.deps_count = 0 then r.input -> c.task_index
        else (
          select ps.output -> c.task_index
          from pgflow.deps as d
          join pgflow.step_states as ps on ps.run_id = c.run_id and ps.step_slug = d.dep_slug
          where d.flow_slug = s.flow_slug and d.step_slug = s.step_slug
        ) end)
      when s.deps_count = 0 then '{}'::jsonb
      else pgflow._dependency_outputs(c.run_id, s.flow_slug, s.step_slug)
    end,
    c.message_id,
    c.task_index,
    case when s.step_type = 'single' and s.deps_count = 0 then r.input end
  from unnest(v_run_ids, v_step_slugs, v_task_indexes, v_message_ids)
    with ordinality as c (run_id, step_slug, task_index, message_id, ord)
  join pgflow.runs as r on r.run_id = c.run_id
  join pgflow.steps as s on s.flow_slug = _start_tasks.flow_slug and s.step_slug = c.step_slug
  order by c.ord;
end;
$$;

comment on function pgflow._start_tasks(text, bigint[], uuid, boolean) is
'The body of start_tasks (which see), shared with read_and_start_tasks: claims the tasks
behind messages msg_ids of flow flow_slug for worker worker_id and returns them with their
input. With extend_lease false the messages keep their visibility timeout (the caller
read them with the task timeout + 2 s already); with true it is set as start_tasks
documents.';
