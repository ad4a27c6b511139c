-- _release_throttled_messages: tasks of a limited step stopped being started: as many held
-- messages as there are free slots become visible again.

create function pgflow._release_throttled_messages(flow_slug text, step_slugs text[])
returns int
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_step record;
  v_free int;
  v_picked bigint[];
  v_live bigint[];
  v_lockable bigint[];
  v_skipped bigint[];
  v_visible int;
  v_released int := 0;
begin
  -- The steps with held messages (of every flow when flow_slug is NULL: the tick), found
  -- from the steps (a few rows) with one probe each.
  for v_step in
    select s.flow_slug, s.step_slug, s.opt_max_in_flight as max_in_flight
    from pgflow.steps as s
    where (_release_throttled_messages.flow_slug is null or s.flow_slug = _release_throttled_messages.flow_slug)
      and (_release_throttled_messages.step_slugs is null or s.step_slug = any(_release_throttled_messages.step_slugs))
      and exists (select 1 from pgflow.throttled_messages as tm
                  where tm.flow_slug = s.flow_slug and tm.step_slug = s.step_slug)
    order by s.flow_slug, s.step_slug
  loop
    -- No lock: releasing one too many only makes a claim hold it again (claims count under
    -- the step's lock); the oldest held messages go first.
    select greatest(coalesce(v_step.max_in_flight, 2147483647) - count(*), 0)::int into v_free
    from pgflow.step_tasks as t
    where t.status = 'started' and t.flow_slug = v_step.flow_slug and t.step_slug = v_step.step_slug
      and t.started_at is not null;
    v_skipped := '{}'::bigint[];
    while v_free > 0 loop
      -- The oldest held rows not taken by a concurrent release (nor passed over below).
      select array_agg(tm.message_id order by tm.message_id) into v_picked
      from (
        select tm.message_id from pgflow.throttled_messages as tm
        where tm.flow_slug = v_step.flow_slug and tm.step_slug = v_step.step_slug
          and tm.message_id <> all(v_skipped)
        order by tm.message_id
        limit v_free
        for update skip locked
      ) as tm;
      exit when v_picked is null;
      -- Live: its task is still queued behind that message. Of those, the messages no claim
      -- is reading right now (a claim that read one starts it or holds it again itself; this
      -- call never waits for a claim, which may be waiting for a row this call deleted).
      v_live := array(
        select p.msg_id from unnest(v_picked) as p (msg_id)
        where exists (select 1 from pgflow.step_tasks as t
                      where t.message_id = p.msg_id and t.flow_slug = v_step.flow_slug and t.status = 'queued'));
      execute format(
        'select coalesce(array_agg(q.msg_id), ''{}'') from (
           select q.msg_id from pgmq.%I as q where q.msg_id = any($1) for update skip locked) as q',
        pgmq.format_table_name(v_step.flow_slug, 'q'))
        into v_lockable using v_live;
      v_skipped := v_skipped || array(select l.msg_id from unnest(v_live) as l (msg_id)
                                      where l.msg_id <> all(v_lockable));
      -- Rows done with: those whose task is no longer queued (cancelled, its message
      -- replaced), and those whose message is made visible now; a message no longer in the
      -- queue (archived while its run is paused) uses no slot.
      delete from pgflow.throttled_messages as tm
      where tm.flow_slug = v_step.flow_slug and tm.step_slug = v_step.step_slug
        and tm.message_id = any(v_picked) and tm.message_id <> all(v_skipped);
      if cardinality(v_lockable) > 0 then
        select count(*)::int into v_visible
        from pgflow.set_vt_batch(v_step.flow_slug, v_lockable, array_fill(0, array[cardinality(v_lockable)]));
        v_released := v_released + v_visible;
        v_free := v_free - v_visible;
        -- Wake the workers listening on the flow's queue (pgmq's NOTIFY fires on inserts
        -- only; sent at commit, once per channel and transaction).
        if v_visible > 0 and pg_catalog.to_regclass('pgmq.notify_insert_throttle') is not null then
          if exists (select 1 from pgmq.notify_insert_throttle as n where n.queue_name = v_step.flow_slug) then
            perform pg_catalog.pg_notify('pgmq.' || pgmq.format_table_name(v_step.flow_slug, 'q') || '.INSERT', '');
          end if;
        end if;
      end if;
    end loop;
  end loop;
  return v_released;
end;
$$;

comment on function pgflow._release_throttled_messages(text, text[]) is
'Makes visible again (vt now) the messages that _throttle_claims held back for the steps
step_slugs of flow flow_slug (NULL flow_slug: every flow; NULL step_slugs: every step), as
many per step as it has free slots (max_in_flight minus its started tasks; all of them when
the limit was removed), lowest message id first, and deletes their throttled_messages rows;
rows whose task is no longer queued, or whose message is no longer in the queue (a paused
run''s, archived), are deleted without using a slot; a message a claim is reading at that
moment (its queue row locked) is left to that claim (never waited for: the claim may be
waiting to insert the held row this call deleted). Returns how many messages it made
visible; when it made some visible and the flow''s queue has pgmq''s insert NOTIFY enabled
(enable_flow_notify), it notifies that channel (pgmq.q_<flow>.INSERT) so that listening
workers read at once. Needs no lock: messages released but not claimed yet do not count against the
free slots, so a second call before the claims may release more than there are slots; a
claim then holds the extra ones again (_throttle_claims), and the limit holds. pgflow-py internal, called where a
task stops being started (complete_tasks, fail_task, requeue_stalled_tasks, _cancel_tasks)
and by tick.';
