-- enable_flow_notify: pgmq's NOTIFY-on-insert for a flow queue, for workers without
-- pgmq privileges.

create function pgflow.enable_flow_notify(flow_slug text, throttle_ms int default 250)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  -- VALIDATE
  if not exists (select 1 from pgflow.flows as f where f.flow_slug = enable_flow_notify.flow_slug) then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', enable_flow_notify.flow_slug);
  end if;
  if enable_flow_notify.throttle_ms is null or enable_flow_notify.throttle_ms < 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('throttle_ms must be a non-negative number of milliseconds (got %s)',
                       coalesce(enable_flow_notify.throttle_ms::text, 'NULL'));
  end if;
  if pg_catalog.to_regclass('pgmq.notify_insert_throttle') is null then
    raise exception using
      errcode = 'feature_not_supported',
      message = 'this pgmq has no NOTIFY on insert (pgmq.notify_insert_throttle is missing)',
      hint = 'Upgrade pgmq; workers poll meanwhile.';
  end if;

  -- GUARD: workers starting together are serialised; the first one enables, the others
  -- find the throttle row and change nothing (the throttle of the first one is kept).
  perform pg_catalog.pg_advisory_xact_lock(4, pg_catalog.hashtext(enable_flow_notify.flow_slug));
  if exists (
    select 1 from pgmq.notify_insert_throttle as t where t.queue_name = enable_flow_notify.flow_slug
  ) then
    return false;
  end if;

  -- MUTATE
  perform pgmq.enable_notify_insert(enable_flow_notify.flow_slug, enable_flow_notify.throttle_ms);
  return true;
end;
$$;

comment on function pgflow.enable_flow_notify(text, int) is
'Enables pgmq''s NOTIFY on insert (pgmq.enable_notify_insert: a deferrable trigger sending
pgmq.q_<queue>.INSERT, at most one notification per throttle_ms milliseconds, default 250)
on the queue of flow flow_slug unless it already is. Returns true when this call enabled it,
false when it was already enabled (the existing throttle is kept). Concurrent calls for one
flow are serialised by pg_advisory_xact_lock(4, hashtext(flow_slug)). Called by workers at
start; SECURITY DEFINER so that the pgflow_worker role needs no pgmq privileges. Raises
foreign_key_violation for an unknown flow, invalid_parameter_value for a NULL or negative
throttle_ms and feature_not_supported when pgmq has no NOTIFY support. pgflow-py extension.';
