-- _throttle_claims: a claim takes no more tasks of a step than its max_in_flight allows (the
-- one implementation of "a task waits for a slot of its step").

create function pgflow._throttle_claims(flow_slug text, msg_ids bigint[])
returns bigint[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_step record;
  v_started int;
  v_free int;
  v_held bigint[] := '{}'::bigint[];
begin
  -- Per limited step among the claimable tasks behind these messages, in step order:
  for v_step in
    select t.step_slug, s.opt_max_in_flight as max_in_flight,
           array_agg(t.message_id order by t.message_id) as msg_ids
    from unnest(_throttle_claims.msg_ids) as m (msg_id)
    join pgflow.step_tasks as t on t.message_id = m.msg_id
    join pgflow.steps as s on s.flow_slug = t.flow_slug and s.step_slug = t.step_slug
    where t.flow_slug = _throttle_claims.flow_slug
      and t.status = 'queued'
      and s.opt_max_in_flight is not null
    group by t.step_slug, s.opt_max_in_flight
    order by t.step_slug
  loop
    -- LOCK the step's slots until this claim commits, then count on a fresh snapshot the
    -- tasks started by every claim before it (the partial index of started tasks holds only
    -- tasks in flight).
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('pgflow.max_in_flight'),
                                             pg_catalog.hashtext(_throttle_claims.flow_slug || '/' || v_step.step_slug));
    select count(*) into v_started
    from pgflow.step_tasks as t
    where t.status = 'started' and t.flow_slug = _throttle_claims.flow_slug
      and t.step_slug = v_step.step_slug and t.started_at is not null;
    v_free := greatest(v_step.max_in_flight - v_started, 0);
    if cardinality(v_step.msg_ids) > v_free then
      -- HOLD the rest: hidden for 5 minutes (a fallback: a slot that frees makes them
      -- visible at once, _release_throttled_messages), and listed; no attempt is spent.
      perform pgflow.set_vt_batch(_throttle_claims.flow_slug, v_step.msg_ids[v_free + 1:],
                                  array_fill(300, array[cardinality(v_step.msg_ids) - v_free]));
      insert into pgflow.throttled_messages (flow_slug, step_slug, message_id, throttled_at)
      select _throttle_claims.flow_slug, v_step.step_slug, h.msg_id, v_now
      from unnest(v_step.msg_ids[v_free + 1:]) as h (msg_id)
      on conflict do nothing;
      v_held := v_held || v_step.msg_ids[v_free + 1:];
    end if;
  end loop;

  if cardinality(v_held) = 0 then
    return _throttle_claims.msg_ids;
  end if;
  return array(select m.msg_id from unnest(_throttle_claims.msg_ids) as m (msg_id)
               where m.msg_id <> all(v_held));
end;
$$;

comment on function pgflow._throttle_claims(text, bigint[]) is
'Of the messages msg_ids (bigint[]) of flow flow_slug that a claim is about to start, keeps
for each step with a max_in_flight only as many queued tasks as the step has free slots
(max_in_flight minus its tasks started now, across runs and workers), lowest message id
first, and returns the ids to claim (the others and those of unlimited steps unchanged, in
their order). The messages held back get a visibility timeout of 300 seconds and a row in
throttled_messages; _release_throttled_messages makes them visible again as slots free; no
attempt is counted. Each limited step''s count is taken under
pg_advisory_xact_lock(hashtext(''pgflow.max_in_flight''), hashtext(flow_slug || ''/'' ||
step_slug)), held until the claim commits, so concurrent claims never start more than
max_in_flight tasks of a step. pgflow-py internal, called by _start_tasks for flows with a
max_in_flight step.';
