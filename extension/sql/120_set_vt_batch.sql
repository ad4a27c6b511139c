-- set_vt_batch: set the visibility timeout of many messages in one statement.

create function pgflow.set_vt_batch(queue_name text, msg_ids bigint[], vt_offsets int[])
returns table (
  msg_id bigint,
  read_ct int,
  enqueued_at timestamptz,
  vt timestamptz,
  message jsonb,
  headers jsonb
)
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if msg_ids is null or vt_offsets is null or cardinality(msg_ids) = 0 then
    return;
  end if;
  if cardinality(msg_ids) <> cardinality(vt_offsets) then
    raise exception using
      errcode = 'array_subscript_error',
      message = format('set_vt_batch: msg_ids has %s elements but vt_offsets has %s',
                       cardinality(msg_ids), cardinality(vt_offsets));
  end if;

  return query execute format(
    $sql$
    update pgmq.%I as q
    set vt = clock_timestamp() + make_interval(secs => v.vt_offset)
    from unnest($1, $2) as v (msg_id, vt_offset)
    where q.msg_id = v.msg_id
    returning q.msg_id, q.read_ct, q.enqueued_at, q.vt, q.message, q.headers
    $sql$,
    pgmq.format_table_name(set_vt_batch.queue_name, 'q')
  ) using msg_ids, vt_offsets;
end;
$$;

comment on function pgflow.set_vt_batch(text, bigint[], int[]) is
'Sets vt = clock_timestamp() + vt_offsets[i] seconds for message msg_ids[i] of queue
queue_name, in one UPDATE, and returns the updated messages (msg_id, read_ct, enqueued_at,
vt, message, headers). Ids not in the queue are skipped. NULL or empty arrays return
nothing; arrays of different lengths raise array_subscript_error. The queue table name
comes from pgmq.format_table_name and is quoted with %I. As upstream pgflow 0.14.1.';
