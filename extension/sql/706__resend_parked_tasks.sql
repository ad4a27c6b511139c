-- _resend_parked_tasks: the parked tasks of a resumed run get their messages again.

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
       and t.status is not distinct from ''queued''
       and not exists (select 1 from pgmq.%I as q where q.msg_id = t.message_id)
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
