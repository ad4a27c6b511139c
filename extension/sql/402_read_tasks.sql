-- read_tasks: first phase of two-phase polling, for workers without pgmq privileges.

create function pgflow.read_tasks(flow_slug text, vt int, qty int)
returns setof pgmq.message_record
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  -- VALIDATE: only the queue of an existing flow is read, so the text argument never
  -- names another pgmq queue (pgmq.read also quotes it through format_table_name).
  if not exists (select 1 from pgflow.flows as f where f.flow_slug = read_tasks.flow_slug) then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', read_tasks.flow_slug);
  end if;
  if read_tasks.vt is null or read_tasks.vt < 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('vt must be a non-negative number of seconds (got %s)', coalesce(read_tasks.vt::text, 'NULL'));
  end if;
  if read_tasks.qty is null or read_tasks.qty < 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('qty must be a non-negative number of messages (got %s)', coalesce(read_tasks.qty::text, 'NULL'));
  end if;

  return query select * from pgmq.read(read_tasks.flow_slug, read_tasks.vt, read_tasks.qty);
end;
$$;

comment on function pgflow.read_tasks(text, int, int) is
'Reserves up to qty visible task messages of the queue of flow flow_slug for vt seconds
(pgmq.read) and returns them as pgmq.message_record rows (msg_id, read_ct, enqueued_at, vt,
message, headers); pass their msg_ids to start_tasks. The first phase of two-phase polling
for workers that hold the pgflow_worker role and no pgmq privileges (SECURITY DEFINER).
Raises foreign_key_violation for an unknown flow (no other queue can be read) and
invalid_parameter_value for a NULL or negative vt or qty. pgflow-py extension: upstream
workers call pgmq.read_with_poll directly.';
