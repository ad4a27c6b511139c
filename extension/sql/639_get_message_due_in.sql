-- get_message_due_in: seconds until messages of a flow's queue are visible again.

create function pgflow.get_message_due_in(flow_slug text, message_ids bigint[])
returns table (
  message_id bigint,
  due_in_seconds double precision
)
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  if not exists (select 1 from pgmq.meta as m where m.queue_name = get_message_due_in.flow_slug) then
    return;  -- no such queue: nothing is due
  end if;
  return query execute format(
    'select q.msg_id, extract(epoch from q.vt - clock_timestamp())::double precision
     from pgmq.%I as q where q.msg_id = any ($1) order by q.msg_id',
    pgmq.format_table_name(get_message_due_in.flow_slug, 'q')
  ) using get_message_due_in.message_ids;
end;
$$;

comment on function pgflow.get_message_due_in(text, bigint[]) is
'For the messages message_ids (bigint[]) of flow flow_slug''s pgmq queue: due_in_seconds,
the seconds until each is visible again (its vt minus clock_timestamp(), as pgmq.read
decides; negative when it already is), e.g. when a task waiting for its retry backoff will
be claimed. Ids not in the queue (archived, deleted) and a flow without a queue give no
row; NULL ids, none. Read-only. For dashboards (the runs list''s "retrying ..., next in
40 s"), so they need no pgmq privilege: SECURITY DEFINER, granted to pgflow_operator.
pgflow-py extension.';

