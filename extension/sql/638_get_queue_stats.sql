-- get_queue_stats: per flow, the messages in its pgmq queue and the age of its backlog.

create function pgflow.get_queue_stats()
returns table (
  flow_slug text,
  messages bigint,
  visible_messages bigint,
  oldest_message_age_seconds double precision
)
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_flow text;
begin
  for v_flow in
    select f.flow_slug from pgflow.flows as f
    where exists (select 1 from pgmq.meta as m where m.queue_name = f.flow_slug)
    order by f.flow_slug
  loop
    return query execute format(
      'select $1, count(*), count(*) filter (where q.vt <= clock_timestamp()),
              coalesce(extract(epoch from clock_timestamp()
                                - min(q.vt) filter (where q.vt <= clock_timestamp())), 0)::double precision
       from pgmq.%I as q',
      pgmq.format_table_name(v_flow, 'q')
    ) using v_flow;
  end loop;
end;
$$;

comment on function pgflow.get_queue_stats() is
'One row per flow that has its pgmq queue (in flow_slug order): messages in the queue
(visible or not: queued tasks, tasks being worked on, retries waiting for their backoff,
messages held by max_in_flight), visible_messages (ready to be read now: vt <=
clock_timestamp(), as pgmq.read decides), and oldest_message_age_seconds: the age of the
backlog, seconds since the longest-waiting visible message became visible (its vt), 0 when
none is visible (a long task, a retry in backoff or a start delay keeps its message
invisible and does not count).
Counts every message: O(queue length). For dashboards and metrics (the database gauges of
`pgflow dashboard`), so they need no pgmq privilege: SECURITY DEFINER, granted to
pgflow_operator. pgflow-py extension.';

