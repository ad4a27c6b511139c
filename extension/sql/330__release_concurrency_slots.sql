-- _release_concurrency_slots: runs that held a slot have ended: the queue behind each of
-- their keys moves on.

create function pgflow._release_concurrency_slots(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_key record;
begin
  -- Under a snapshot older than the locks (REPEATABLE READ, SERIALIZABLE) the count could
  -- be stale: the tick, in its own transaction, starts those queued runs instead.
  if pg_catalog.current_setting('transaction_isolation') <> 'read committed' then
    return;
  end if;
  -- Keys in a fixed order, so that two transactions ending runs of two keys take them alike.
  -- Each key's lock is taken even when no run seems queued: a start queueing behind this
  -- run may not have committed yet, and it holds the lock until it has.
  for v_key in
    select distinct r.flow_slug, r.concurrency_key
    from pgflow.runs as r
    where r.run_id = any(_release_concurrency_slots.run_ids) and r.concurrency_key is not null
    order by r.flow_slug, r.concurrency_key
  loop
    perform pgflow._start_queued_runs(v_key.flow_slug, v_key.concurrency_key);
  end loop;
end;
$$;

comment on function pgflow._release_concurrency_slots(uuid[]) is
'For runs run_ids that held a concurrency slot (were started or paused) and have just
ended (completed, failed, cancelled, expired): for each of their concurrency keys, in
(flow_slug, key) order, starts the queued runs that now fit
(_start_queued_runs). Runs without a key cost one lookup. Outside READ COMMITTED it does
nothing (the tick starts them). The caller holds the runs'' rows. pgflow-py internal,
called by _complete_runs, _fail_run, cancel_run and _expire_runs.';
