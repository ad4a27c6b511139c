-- _park_queued_tasks: the queued tasks of paused runs lose their messages until resume_run
-- sends new ones (the one implementation of "a paused run starts no task").

create function pgflow._park_queued_tasks(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_flow record;
begin
  -- The task rows are locked first: a claim that has read one of these messages skips a
  -- locked task (start_tasks uses SKIP LOCKED), and one that locked it first has started
  -- it (it is no longer queued when the lock is granted, so it keeps its message).
  for v_flow in
    with parked as (
      select t.flow_slug, t.message_id
      from pgflow.step_tasks as t
      join pgflow.runs as r on r.run_id = t.run_id
      where t.run_id = any(_park_queued_tasks.run_ids)
        and r.status = 'paused'
        and t.status = 'queued'
        and t.message_id is not null
      for update of t
    )
    select p.flow_slug, array_agg(p.message_id) as msg_ids
    from parked as p
    group by p.flow_slug
  loop
    perform pgflow._archive_messages(v_flow.flow_slug, v_flow.msg_ids);
  end loop;
end;
$$;

comment on function pgflow._park_queued_tasks(uuid[]) is
'Parks the queued tasks of those runs of run_ids that are paused: their messages are
archived (pgmq keeps each message''s visibility time in the archive) while the tasks stay
queued with their message_id, so no worker can claim them; resume_run sends them new
messages (_resend_parked_tasks). Tasks of runs that are not paused are left alone; a repeated
call archives nothing more. The caller holds the runs'' rows. pgflow-py internal, used by
pause_run and by fail_task''s retry (a task queued again while its run is paused).
requeue_stalled_tasks leaves the tasks of paused runs alone: a stalled task of a paused run
is requeued after resume_run.';

create function pgflow._resend_parked_tasks(run_id uuid)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_flow_slug text;
  v_delay int;
  v_step_slugs text[];
  v_task_indexes int[];
begin
  select r.flow_slug into v_flow_slug from pgflow.runs as r where r.run_id = _resend_parked_tasks.run_id;

  -- Each queued task whose message sits in the archive (parked) gets a new one, visible when
  -- the old one would have been: at once when that time passed during the pause (a backoff
  -- or start delay that fell due), else after what is left of it (pgmq's clock,
  -- clock_timestamp(), as its vt; greatest ignores the NULL of a message that is gone).
  for v_delay, v_step_slugs, v_task_indexes in execute format(
    'select case when h.message_id is not null then 0
                 else greatest(0, ceil(extract(epoch from a.vt - clock_timestamp())))::int end as delay,
            array_agg(t.step_slug order by t.step_slug, t.task_index) as step_slugs,
            array_agg(t.task_index order by t.step_slug, t.task_index) as task_indexes
     from pgflow.step_tasks as t
     left join pgmq.%I as a on a.msg_id = t.message_id
     left join pgflow.throttled_messages as h
       on h.flow_slug = t.flow_slug and h.step_slug = t.step_slug and h.message_id = t.message_id
     where t.run_id = $1
       and t.status = ''queued''
       and (t.message_id is null
            or not exists (select 1 from pgmq.%I as q where q.msg_id = t.message_id))
     group by 1
     order by 1',
    pgmq.format_table_name(v_flow_slug, 'a'), pgmq.format_table_name(v_flow_slug, 'q'))
    using _resend_parked_tasks.run_id
  loop
    -- A task max_in_flight held back was not delayed: its old row goes, its new message is
    -- visible at once (a claim holds it again if the step has no free slot).
    delete from pgflow.throttled_messages as h
    using pgflow.step_tasks as t
    where t.run_id = _resend_parked_tasks.run_id
      and t.step_slug = any(v_step_slugs)
      and h.flow_slug = t.flow_slug and h.step_slug = t.step_slug and h.message_id = t.message_id;
    update pgflow.step_tasks as t
    set message_id = m.msg_id
    from (
      select k.step_slug, k.task_index, m.msg_id
      from unnest(v_step_slugs, v_task_indexes) with ordinality as k (step_slug, task_index, ord)
      join pgflow._send_task_messages(v_flow_slug,
             array_fill(_resend_parked_tasks.run_id, array[cardinality(v_step_slugs)]),
             v_step_slugs, v_task_indexes, v_delay)
        with ordinality as m (msg_id, ord) on m.ord = k.ord
    ) as m
    where t.run_id = _resend_parked_tasks.run_id
      and t.step_slug = m.step_slug
      and t.task_index = m.task_index;
  end loop;
end;
$$;

comment on function pgflow._resend_parked_tasks(uuid) is
'Sends a new message for every queued task of run run_id whose message is not in the queue
(parked by _park_queued_tasks, or never sent): visible at once when the parked message''s
visibility time has passed or max_in_flight held it back (its throttled_messages row is
deleted), else when it would have become visible; the task''s message_id
then names the new message. Tasks whose message is still in the queue are left alone, so a
repeated call sends nothing more. The caller holds the run row. pgflow-py internal, used by
resume_run.';
