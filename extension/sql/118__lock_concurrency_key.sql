-- _lock_concurrency_key: the lock that orders everything done to one concurrency key.

create function pgflow._lock_concurrency_key(flow_slug text, concurrency_key text)
returns void
language sql
volatile
set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('pgflow.concurrency_key'),
                                          pg_catalog.hashtext(_lock_concurrency_key.flow_slug || '/'
                                                              || _lock_concurrency_key.concurrency_key));
$$;

comment on function pgflow._lock_concurrency_key(text, text) is
'Takes the transaction-scoped advisory lock of concurrency key concurrency_key of flow
flow_slug: pg_advisory_xact_lock(hashtext(''pgflow.concurrency_key''), hashtext(flow_slug ||
''/'' || concurrency_key)) (slugs hold no ''/'', so two keys never share a lock unless their
hashes collide, which only serialises them). Waits while another transaction holds it;
re-entrant; released at commit or rollback. Taken by start_flow and _take_concurrency_slot
before counting a key''s runs and by _start_queued_runs before starting queued ones. Lock
order: after the run rows the caller holds, before the queued runs it starts. pgflow-py
internal.';
