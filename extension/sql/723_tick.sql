-- tick: the one maintenance entry point for time: fire waits whose deadline passed (signal
-- timeouts, timers), expire runs past their deadline, start queued runs a missed release left
-- waiting, requeue stalled tasks, release throttled messages.

create function pgflow.tick(max_runs int default 100)
returns table (
  ran boolean,
  fired_waits int,
  requeued_tasks int,
  expired_runs int,
  started_queued_runs int,
  released_tasks int
)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run_ids uuid[];
  v_fired int := 0;
  v_due_runs uuid[];
  v_due_slugs text[];
  v_expired int := 0;
  v_started int := 0;
  v_key record;
  v_now timestamptz;
begin
  if tick.max_runs is null or tick.max_runs < 1 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('tick: max_runs must be >= 1 (got %s)', coalesce(tick.max_runs::text, 'NULL'));
  end if;
  -- One tick at a time; a concurrent call returns at once (the running one covers it).
  -- Transaction-scoped, so a killed tick leaves no lock behind.
  if not pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtext('pgflow.tick')) then
    return query select false, 0, 0, 0, 0, 0;
    return;
  end if;
  v_now := pgflow._now();

  -- FIRE: started runs with a wait past its deadline, earliest first, at most max_runs; a run
  -- locked by a concurrent signal or report is left to the next tick (lock order: run first).
  select array_agg(r.run_id) into v_run_ids
  from (
    select r.run_id
    from pgflow.runs as r
    where r.run_id in (
      select ws.run_id
      from pgflow.wait_states as ws
      join pgflow.runs as wr on wr.run_id = ws.run_id
      where ws.resolved_at is null and ws.deadline <= v_now
        and wr.status is not distinct from 'started'
      group by ws.run_id
      order by min(ws.deadline)
      limit tick.max_runs
    )
      and r.status is not distinct from 'started'
    order by r.run_id
    for update skip locked
  ) as r;
  if v_run_ids is not null then
    -- The waits due now, to count those this call fires (not others resolved earlier in
    -- the same transaction).
    select array_agg(ws.run_id), array_agg(ws.step_slug) into v_due_runs, v_due_slugs
    from pgflow.wait_states as ws
    where ws.run_id = any(v_run_ids) and ws.resolved_at is null and ws.deadline <= v_now;
    perform pgflow._advance_runs(v_run_ids);
    select count(*)::int into v_fired
    from unnest(v_due_runs, v_due_slugs) as d (run_id, step_slug)
    join pgflow.wait_states as ws on ws.run_id = d.run_id and ws.step_slug = d.step_slug
    where ws.outcome in ('timed_out', 'due', 'unreadable');
  end if;

  -- EXPIRE started and paused runs past their deadline, earliest first (their slots go to
  -- the queued runs of their keys).
  select array_agg(r.run_id) into v_run_ids
  from (
    select r.run_id from pgflow.runs as r
    where r.deadline <= v_now and r.status in ('started', 'paused')
    order by r.deadline
    limit tick.max_runs
    for update skip locked
  ) as r;
  v_expired := cardinality(pgflow._expire_runs(v_run_ids));

  -- START queued runs whose key has a free slot (a release this transaction could not do:
  -- it ran under REPEATABLE READ, or a slot was freed by a change of the limit).
  for v_key in
    select q.flow_slug, q.concurrency_key
    from (select distinct r.flow_slug, r.concurrency_key from pgflow.runs as r where r.status = 'queued') as q
    join pgflow.flows as f on f.flow_slug = q.flow_slug
    where coalesce(f.opt_concurrency_limit, 2147483647) > (
      select count(*) from pgflow.runs as h
      where h.flow_slug = q.flow_slug and h.concurrency_key = q.concurrency_key
        and h.status in ('started', 'paused'))
    order by q.flow_slug, q.concurrency_key
    limit tick.max_runs
  loop
    v_started := v_started + pgflow._start_queued_runs(v_key.flow_slug, v_key.concurrency_key);
  end loop;

  -- EXPIRE queued runs past their deadline (after the starts above: no queued run is locked
  -- here before a key's lock is waited for).
  select array_agg(r.run_id) into v_run_ids
  from (
    select r.run_id from pgflow.runs as r
    where r.deadline <= v_now and r.status = 'queued'
    order by r.deadline
    limit tick.max_runs
    for update skip locked
  ) as r;
  v_expired := v_expired + cardinality(pgflow._expire_runs(v_run_ids));

  return query select true, v_fired, pgflow.requeue_stalled_tasks(), v_expired, v_started,
                      pgflow._release_throttled_messages(null, null);
end;
$$;

comment on function pgflow.tick(int) is
'The maintenance call for time-based transitions, run every few seconds by the worker or by
pg_cron (setup_tick_cron). In order: fires the waits whose deadline has passed (the
engine''s time, pgflow._now()) in at most max_runs (>= 1) started runs, earliest deadline
first (a signal wait with no pending matching signal times out and its on_timeout applies, a
timer completes; the
runs then move on, _advance_runs); expires at most max_runs started or paused runs whose
deadline has passed (_expire_runs); starts the queued runs of at most max_runs concurrency
keys that have a free slot (_start_queued_runs: normally done when a slot frees; this
catches a release made outside READ COMMITTED or a raised limit); expires at most max_runs
queued runs past their deadline; requeues stalled tasks (requeue_stalled_tasks); makes
visible the messages that max_in_flight held back, one per free slot of their step
(_release_throttled_messages). Returns ran (false: another tick was running, nothing was
done), fired_waits, requeued_tasks, expired_runs, started_queued_runs, released_tasks. One
tick at a time (try advisory lock, transaction-scoped); runs locked by a concurrent signal,
report or verb are skipped (SKIP LOCKED) and handled by the next tick; a repeated call does
nothing twice. A paused run''s waits are not fired: resume_run settles them (its deadline
does expire it). Raises invalid_parameter_value for max_runs < 1. pgflow-py extension.';
