-- _expire_runs: runs whose deadline has passed end as expired (the one implementation of "a
-- run expires").

create function pgflow._expire_runs(run_ids uuid[])
returns uuid[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_expired uuid[];
  v_held uuid[];
  v_deadlines jsonb[];
begin
  -- MUTATE: a queued, started or paused run past its deadline expires; a finished one, or
  -- one whose deadline has not passed, is left alone (a repeated call changes nothing).
  with expired as (
    update pgflow.runs as r
    set status = 'expired',
        expired_at = v_now,
        paused_at = null
    from (select o.run_id, o.status from pgflow.runs as o where o.run_id = any(_expire_runs.run_ids)) as was
    where r.run_id = was.run_id
      and (r.status is not distinct from 'queued' or r.status is not distinct from 'started'
           or r.status is not distinct from 'paused')
      and r.deadline <= v_now
    returning r.run_id, was.status as was_status, r.concurrency_key, r.deadline
  )
  select array_agg(e.run_id order by e.run_id),
         array_agg(e.run_id order by e.run_id) filter (where e.concurrency_key is not null
                                                        and e.was_status <> 'queued'),
         array_agg(jsonb_build_object('deadline', e.deadline, 'was', e.was_status) order by e.run_id)
  into v_expired, v_held, v_deadlines
  from expired as e;
  if v_expired is null then
    return '{}'::uuid[];
  end if;
  perform pgflow._record_events(array['run:expired'], v_expired, details => v_deadlines,
                                default_actor => 'system');

  -- Nothing of theirs runs any more: unfinished steps and tasks cancelled, messages archived,
  -- waits abandoned; then the slots they held go to the queued runs of their keys.
  perform pgflow._cancel_unfinished_work(v_expired);
  if v_held is not null then
    perform pgflow._release_concurrency_slots(v_held);
  end if;
  return v_expired;
end;
$$;

comment on function pgflow._expire_runs(uuid[]) is
'Expires every run of run_ids (uuid[]) that is queued, started or paused and whose deadline
has passed (the engine''s time, pgflow._now()): status expired, expired_at that time
(paused_at cleared), run:expired
in run_events (details: deadline, was: the status it had; actor from pgflow.actor, else
system); its unfinished steps and tasks are cancelled, their messages archived and its waits
abandoned (_cancel_unfinished_work), so late reports are ignored (reason run_expired); the
concurrency slots the started and paused ones held go to the queued runs of their keys
(_release_concurrency_slots). Returns the ids of the runs it expired (sorted; empty when
none). Other runs are left alone, so a repeated call expires nothing more. The caller holds
the runs'' rows. pgflow-py internal, used by tick.';
