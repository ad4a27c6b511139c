-- _take_concurrency_slot: may one more run of a flow with this concurrency key start now?
-- (the one implementation of "a run takes a slot, or waits for one, or is refused").

create function pgflow._take_concurrency_slot(
  caller text,
  flow pgflow.flows,
  concurrency_key text,
  may_queue boolean
)
returns text
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_limit int := (_take_concurrency_slot.flow).opt_concurrency_limit;
  v_flow_slug text := (_take_concurrency_slot.flow).flow_slug;
  v_holders uuid[];
  v_queued int;
  v_held int;
  v_queue_waits boolean;
  v_now timestamptz;
begin
  if _take_concurrency_slot.concurrency_key is null or v_limit is null then
    return 'started';
  end if;
  -- Counting and taking must see every committed start and end: a snapshot older than the
  -- lock (REPEATABLE READ, SERIALIZABLE) could count a slot twice.
  if pg_catalog.current_setting('transaction_isolation') <> 'read committed' then
    raise exception using
      errcode = 'invalid_transaction_state',
      message = format('%s: a run with a concurrency_key needs a READ COMMITTED transaction (this one is %s)',
                       _take_concurrency_slot.caller, pg_catalog.current_setting('transaction_isolation')),
      hint = 'Call it in a READ COMMITTED transaction (PostgreSQL''s default) or in autocommit.';
  end if;

  -- LOCK the key (released at commit), then count on a fresh snapshot: the runs holding a
  -- slot (started, paused) and those still waiting for one (queued, deadline not passed:
  -- the tick expires the others).
  perform pgflow._lock_concurrency_key(v_flow_slug, _take_concurrency_slot.concurrency_key);
  v_now := pgflow._now();
  -- (at most limit holders are read, and one queued run: the cost does not grow with the
  -- key's runs; the full list is read only to name the holders of a refusal)
  select count(*)::int into v_held
  from (select 1 from pgflow.runs as r
        where r.flow_slug = v_flow_slug and r.concurrency_key = _take_concurrency_slot.concurrency_key
          and r.status in ('started', 'paused')
        limit v_limit) as h;
  select exists (
    select 1 from pgflow.runs as r
    where r.flow_slug = v_flow_slug and r.concurrency_key = _take_concurrency_slot.concurrency_key
      and r.status = 'queued' and (r.deadline is null or r.deadline > v_now))
  into v_queue_waits;

  -- A free slot goes to the runs already waiting first (start order).
  if v_held < v_limit and not v_queue_waits then
    return 'started';
  end if;
  if _take_concurrency_slot.may_queue and (_take_concurrency_slot.flow).opt_on_limit = 'queue' then
    return 'queued';
  end if;
  select array_agg(r.run_id order by r.started_at, r.run_id) filter (where r.status <> 'queued'),
         count(*) filter (where r.status = 'queued' and (r.deadline is null or r.deadline > v_now))
  into v_holders, v_queued
  from pgflow.runs as r
  where r.flow_slug = v_flow_slug
    and r.concurrency_key = _take_concurrency_slot.concurrency_key
    and r.status in ('queued', 'started', 'paused');
  raise exception using
    errcode = 'configuration_limit_exceeded',
    message = format('%s: concurrency limit of flow %L for key %L is reached (%s of %s): held by run %s',
                     _take_concurrency_slot.caller, v_flow_slug, _take_concurrency_slot.concurrency_key,
                     coalesce(cardinality(v_holders), 0), v_limit,
                     coalesce(array_to_string(v_holders, ', '), '(none)')),
    detail = format('Runs holding the slots: %s. Runs queued for one: %s.',
                    coalesce(array_to_string(v_holders, ', '), 'none'), v_queued),
    hint = case when _take_concurrency_slot.may_queue
                then 'Nothing was written. Retry when one of them has finished, or set the flow''s on_limit to queue.'
                else 'Nothing was written. Retry when one of them has finished.' end;
end;
$$;

comment on function pgflow._take_concurrency_slot(text, pgflow.flows, text, boolean) is
'Decides whether one more run of flow (a flows row) with concurrency_key may start now:
returns ''started'' when the key is NULL or the flow has no concurrency_limit, or when fewer
than the limit of its runs with that key are started or paused and none is queued (but
queued runs past their deadline, which the tick expires);
otherwise ''queued'' when may_queue and the flow''s on_limit is queue. Raises, writing
nothing: configuration_limit_exceeded (53400) "<caller>: concurrency limit of flow <f> for
key <k> is reached (<n> of <limit>): held by run <id>, ..." otherwise (on_limit reject, or
may_queue false as for retry_run); invalid_transaction_state (25000) when a limited key is
used outside READ COMMITTED. Holds the key''s lock (_lock_concurrency_key) until the
caller''s transaction ends, so concurrent
starts of one key are decided one after the other, each seeing the ones before. Lock order:
the key is taken after any run row the caller holds, and queued runs after the key
(_start_queued_runs). pgflow-py internal, used by start_flow and retry_run.';
