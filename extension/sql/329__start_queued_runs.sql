-- _start_queued_runs: queued runs of a concurrency key take the slots that are free, in start
-- order (the one implementation of "a queued run starts").

create function pgflow._start_queued_runs(flow_slug text, concurrency_key text)
returns int
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_limit int;
  v_free int;
  v_run pgflow.runs;
  v_batch uuid[];
  v_started int := 0;
  v_key jsonb := to_jsonb(_start_queued_runs.flow_slug || '/' || _start_queued_runs.concurrency_key);
  v_draining jsonb := coalesce(nullif(pg_catalog.current_setting('pgflow.draining_keys', true), ''), '[]')::jsonb;
  v_now timestamptz;
begin
  -- A run started below that ends at once (its steps all skipped) frees its slot from inside
  -- the cascade started here: that nested call leaves the key to this one, which counts
  -- again, so a long queue drains in a loop rather than one stack frame per run.
  if v_draining @> jsonb_build_array(v_key) then
    return 0;
  end if;
  perform pg_catalog.set_config('pgflow.draining_keys', (v_draining || jsonb_build_array(v_key))::text, true);
  -- The key's lock first (re-entrant: start_flow and _release_concurrency_slots may hold it).
  perform pgflow._lock_concurrency_key(_start_queued_runs.flow_slug, _start_queued_runs.concurrency_key);
  v_now := pgflow._now();

  loop
    select f.opt_concurrency_limit into v_limit from pgflow.flows as f where f.flow_slug = _start_queued_runs.flow_slug;
    -- (no limit any more: nothing holds the queue back)
    select coalesce(v_limit, 2147483647) - count(*) into v_free
    from pgflow.runs as r
    where r.flow_slug = _start_queued_runs.flow_slug and r.concurrency_key = _start_queued_runs.concurrency_key
      and r.status in ('started', 'paused');

    -- One run at a time, oldest first: a run locked meanwhile by a verb that ended it
    -- (cancel, expiry) is no longer queued once its lock is granted and is passed over. A
    -- run whose deadline has passed is left to the tick, which expires it.
    v_batch := '{}'::uuid[];
    while v_free > 0 loop
      select r.* into v_run
      from pgflow.runs as r
      where r.flow_slug = _start_queued_runs.flow_slug and r.concurrency_key = _start_queued_runs.concurrency_key
        and r.status = 'queued' and (r.deadline is null or r.deadline > v_now)
      order by r.queue_seq
      limit 1
      for update;
      exit when not found;
      update pgflow.runs as r
      set status = 'started',
          started_at = greatest(v_now, r.started_at)
      where r.run_id = v_run.run_id
      returning r.* into v_run;
      perform pgflow._record_queued_run_start(v_run);
      v_batch := v_batch || v_run.run_id;
      v_free := v_free - 1;
    end loop;
    exit when cardinality(v_batch) = 0;

    -- CASCADE: their root steps start (conditions, waits, empty maps as at any start); the
    -- loop counts again for those that ended at once.
    perform pgflow._advance_runs(v_batch);
    v_started := v_started + cardinality(v_batch);
  end loop;

  perform pg_catalog.set_config('pgflow.draining_keys', v_draining::text, true);
  return v_started;
end;
$$;

comment on function pgflow._start_queued_runs(text, text) is
'Starts the queued runs of flow flow_slug with concurrency_key that fit in the free slots
(the flow''s concurrency_limit minus its runs with that key that are started or paused; no
limit any more: all of them), oldest start first (queue_seq): each becomes started
(started_at the engine''s time, pgflow._now(); queued_at kept), run:started is recorded
(details.queued_at), and its ready steps start (_advance_runs). Queued runs past their
deadline are left for the tick to expire. Returns how many runs it started; a repeated call
starts nothing more. Runs that end at once free their slots back into the same loop (a
nested call for a key being drained
returns 0 at once; setting pgflow.draining_keys), so the stack does not grow with the
queue. Takes the
key''s lock (_lock_concurrency_key), then each queued run''s row: lock order
finished run -> key -> queued run -> its step states and tasks. pgflow-py internal, used by
_release_concurrency_slots and tick.';
