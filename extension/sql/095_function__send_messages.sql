-- _send_messages: send a batch of task messages to a flow queue.

create function pgflow._send_messages(queue_name text, msgs jsonb[], delay int)
returns setof bigint
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- pgmq's send_batch(queue, msgs, delay int) is a SQL-language wrapper, parsed and
  -- planned again at every call; the PL/pgSQL overload it calls (headers, visible-at
  -- timestamp) keeps its plans, so it is called directly where this pgmq has it.
  if pg_catalog.to_regprocedure('pgmq.send_batch(text,jsonb[],jsonb[],timestamp with time zone)') is not null then
    return query
    select m.msg_id
    from pgmq.send_batch(_send_messages.queue_name, _send_messages.msgs, null::jsonb[],
                         pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => _send_messages.delay))
      as m (msg_id);
  else
    return query
    select m.msg_id
    from pgmq.send_batch(_send_messages.queue_name, _send_messages.msgs, _send_messages.delay)
      as m (msg_id);
  end if;
end;
$$;

comment on function pgflow._send_messages(text, jsonb[], int) is
'Sends msgs (jsonb[]) to pgmq queue queue_name, visible after delay seconds, and returns
their msg_ids in array order, as pgmq.send_batch(queue_name, msgs, delay) does; calls the
PL/pgSQL send_batch(queue_name, msgs, headers, timestamptz) directly when pgmq has it (the
integer-delay form is a SQL wrapper re-planned at every call). pgflow-py internal.';
