-- _cancel_unfinished_work: a run that has ended (failed, cancelled) leaves nothing live: its
-- unfinished steps and tasks become cancelled and their messages go to the archive (the one
-- implementation of "a run's unfinished work is cancelled").

create function pgflow._cancel_unfinished_work(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_run_ids uuid[];
  v_step_slugs text[];
begin
  -- Steps first, then their tasks (lock order run -> step_state -> step_task; the caller
  -- holds the runs). A claim racing this skips the locked task rows (start_tasks uses SKIP
  -- LOCKED), so it never starts a task cancelled here.
  with cancelled as (
    update pgflow.step_states as ss
    set status = 'cancelled',
        cancelled_at = v_now
    from unnest(_cancel_unfinished_work.run_ids) as k (run_id)
    where ss.run_id = k.run_id
      and ss.status in ('created', 'started', 'waiting')
    returning ss.run_id, ss.step_slug
  )
  select array_agg(c.run_id order by c.run_id, c.step_slug), array_agg(c.step_slug order by c.run_id, c.step_slug)
  into v_run_ids, v_step_slugs
  from cancelled as c;
  if v_run_ids is not null then
    perform pgflow._record_events(array['step:cancelled'], v_run_ids, v_step_slugs);
    -- A waiting step among them: its wait ends too (it never holds a task).
    perform pgflow._abandon_waits(v_run_ids, v_step_slugs);
  end if;

  perform pgflow._cancel_tasks(_cancel_unfinished_work.run_ids, null);
end;
$$;

comment on function pgflow._cancel_unfinished_work(uuid[]) is
'For runs run_ids that have just ended (failed or cancelled): every step still created, waiting or
started becomes cancelled (cancelled_at now; step:cancelled in run_events) and every task
still queued or started becomes cancelled (cancelled_at now) and loses its message (archived,
one pgmq.archive per flow). Completed, failed and skipped steps and tasks are left as they
are. A late report for a cancelled task is ignored (reason task_cancelled). Idempotent: a
second call finds nothing unfinished. The caller holds the runs'' rows (lock order run ->
step_state -> step_task). pgflow-py internal.';
