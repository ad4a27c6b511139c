-- _cancel_tasks: queued and started tasks become cancelled and lose their messages (the one
-- implementation of "a task is cancelled").

create function pgflow._cancel_tasks(run_ids uuid[], step_slugs text[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_flow record;
begin
  -- A claim racing this skips the locked task rows (start_tasks uses SKIP LOCKED), so it
  -- never starts a task cancelled here; archiving waits for a claim that holds a message.
  for v_flow in
    with cancelled as (
      update pgflow.step_tasks as t
      set status = 'cancelled',
          cancelled_at = v_now
      from unnest(_cancel_tasks.run_ids, _cancel_tasks.step_slugs) as k (run_id, step_slug)
      where t.run_id = k.run_id
        and (k.step_slug is null or t.step_slug = k.step_slug)
        and t.status in ('queued', 'started')
      returning t.flow_slug, t.message_id
    )
    select c.flow_slug, array_agg(c.message_id) filter (where c.message_id is not null) as msg_ids
    from cancelled as c
    group by c.flow_slug
  loop
    perform pgflow._archive_messages(v_flow.flow_slug, v_flow.msg_ids);
    -- Cancelled started tasks free slots of their steps' max_in_flight.
    perform pgflow._release_throttled_messages(v_flow.flow_slug, null);
  end loop;
end;
$$;

comment on function pgflow._cancel_tasks(uuid[], text[]) is
'Cancels the tasks of step (run_ids[i], step_slugs[i]) that are queued or started
(step_slugs NULL, or an element NULL: every step of run run_ids[i]): status cancelled,
cancelled_at now, messages archived (one pgmq.archive per flow). Other tasks are left as
they are; a repeated call finds nothing to cancel. A late report for a cancelled task is
ignored (reason run_failed, run_cancelled or task_cancelled). The caller holds the runs''
rows and has locked or updated their step_states (lock order run -> step_state ->
step_task). pgflow-py internal.';
