-- _archive_messages: move a set of messages of one flow queue to its archive.

create function pgflow._archive_messages(queue_name text, msg_ids bigint[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if msg_ids is not null and cardinality(msg_ids) > 0 then
    perform pgmq.archive(_archive_messages.queue_name, _archive_messages.msg_ids);
  end if;
end;
$$;

comment on function pgflow._archive_messages(text, bigint[]) is
'Archives (never deletes) the pgmq messages msg_ids of queue queue_name in one call; ids no
longer in the queue are ignored; NULL or empty arrays do nothing.';
