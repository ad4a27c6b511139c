-- _grant_queue_to_upstream_worker: what an upstream worker needs on one flow's pgmq queue.

create function pgflow._grant_queue_to_upstream_worker(flow_slug text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- An upstream worker reads with pgmq.read_with_poll, which selects and updates the queue
  -- table as the caller. Nothing to do without the role or the queue.
  if pg_catalog.to_regrole('pgflow_upstream_worker') is null
     or not exists (select 1 from pgmq.meta as m where m.queue_name = _grant_queue_to_upstream_worker.flow_slug) then
    return;
  end if;
  execute format('grant select, update on table pgmq.%I to pgflow_upstream_worker',
                 pgmq.format_table_name(_grant_queue_to_upstream_worker.flow_slug, 'q'));
end;
$$;

comment on function pgflow._grant_queue_to_upstream_worker(text) is
'Grants SELECT and UPDATE on the pgmq queue table of flow flow_slug (pgmq.q_<slug>) to role
pgflow_upstream_worker, which an upstream pgflow worker needs for pgmq.read_with_poll; does
nothing when the role or the queue does not exist. Called by create_flow for a new queue
and by _grant_upstream_worker for every flow. A caller that may not grant on the table
(it neither owns it nor holds the grant option) gets PostgreSQL''s WARNING and nothing is
granted when it holds some privilege on the table, and insufficient_privilege (42501) when
it holds none, or may not read pgmq.meta. pgflow-py internal.';
