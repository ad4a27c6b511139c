-- requeue_stalled_tasks: requeue tasks whose worker disappeared (stalled tasks), on the
-- database clock; after 3 requeues a task is left permanently stalled.

create function pgflow.requeue_stalled_tasks()
returns int
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_requeued int := 0;
  v_flow record;
begin
  -- One call at a time; a concurrent call returns 0 at once (the running one covers it).
  -- Transaction-scoped, so a killed call leaves no lock behind.
  if not pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtext('pgflow.requeue_stalled_tasks')) then
    return 0;
  end if;

  -- Stalled: started longer ago than the step's effective timeout (step, else flow) plus a
  -- 30-second buffer, on the database clock. Rows are locked SKIP LOCKED and the UPDATE
  -- re-checks status and started_at, so a task completed, failed or restarted meanwhile
  -- is never touched.
  for v_flow in
    with stalled as (
      select t.run_id, t.step_slug, t.task_index, t.started_at, t.requeued_count
      from pgflow.step_tasks as t
      join pgflow.steps as s on s.flow_slug = t.flow_slug and s.step_slug = t.step_slug
      join pgflow.flows as f on f.flow_slug = t.flow_slug
      join pgflow.runs as r on r.run_id = t.run_id
      join pgflow.step_states as ss on ss.run_id = t.run_id and ss.step_slug = t.step_slug
      where t.status = 'started'
        and r.status = 'started'
        and ss.status = 'started'
        and t.permanently_stalled_at is null
        and t.started_at < now() - make_interval(secs => coalesce(s.opt_timeout, f.opt_timeout) + 30)
      for update of t skip locked
    ),
    swept as (
      update pgflow.step_tasks as t
      set status = case when st.requeued_count < 3 then 'queued' else t.status end,
          started_at = case when st.requeued_count < 3 then null else t.started_at end,
          last_worker_id = case when st.requeued_count < 3 then null else t.last_worker_id end,
          requeued_count = case when st.requeued_count < 3 then t.requeued_count + 1 else t.requeued_count end,
          last_requeued_at = case when st.requeued_count < 3 then now() else t.last_requeued_at end,
          permanently_stalled_at = case when st.requeued_count < 3 then null else now() end
      from stalled as st
      where t.run_id = st.run_id
        and t.step_slug = st.step_slug
        and t.task_index = st.task_index
        and t.status = 'started'
        and t.started_at = st.started_at
      returning t.flow_slug, t.message_id, t.status
    )
    select
      sw.flow_slug,
      coalesce(array_agg(sw.message_id) filter (where sw.status = 'queued' and sw.message_id is not null), '{}') as requeue_ids,
      coalesce(array_agg(sw.message_id) filter (where sw.status = 'started' and sw.message_id is not null), '{}') as stalled_ids,
      count(*) filter (where sw.status = 'queued') as requeued
    from swept as sw
    group by sw.flow_slug
  loop
    -- Requeued: the message becomes visible now. Permanently stalled: archived.
    perform pgflow.set_vt_batch(v_flow.flow_slug, v_flow.requeue_ids,
                                array_fill(0, array[cardinality(v_flow.requeue_ids)]));
    perform pgflow._archive_messages(v_flow.flow_slug, v_flow.stalled_ids);
    v_requeued := v_requeued + v_flow.requeued;
  end loop;

  return v_requeued;
end;
$$;

comment on function pgflow.requeue_stalled_tasks() is
'Requeues stalled tasks. A task is stalled when it is started in a started step of a
started run (tasks left behind by a failed run or a skipped step are not work any more),
not permanently stalled, and its started_at is older than coalesce(step timeout, flow
timeout) + 30 seconds (database clock). Requeued up to 3 times (status queued, started_at
and last_worker_id NULL, requeued_count + 1, last_requeued_at now, message visible at once;
attempts_count unchanged, so a late report of the old attempt is fenced by complete_task /
fail_task''s attempt argument); after that permanently_stalled_at is stamped, the message
archived and the status left started (see view pgflow.permanently_stalled_tasks). Returns
the number of tasks requeued. Safe to run concurrently: a second concurrent call returns 0
(try advisory lock), rows are locked SKIP LOCKED and re-checked, so a task completed
meanwhile is never touched; a repeated call requeues nothing new. Does not depend on
pgflow.workers rows. As upstream pgflow 0.14.1 requeue_stalled_tasks, except that the
timeout is the step''s own when set (upstream: the flow''s; compat/UPSTREAM.md).';

create view pgflow.permanently_stalled_tasks as
select
  t.flow_slug,
  t.run_id,
  t.step_slug,
  t.task_index,
  t.message_id,
  t.attempts_count,
  t.requeued_count,
  t.started_at,
  t.last_requeued_at,
  t.permanently_stalled_at,
  r.status as run_status
from pgflow.step_tasks as t
join pgflow.runs as r on r.run_id = t.run_id
where t.permanently_stalled_at is not null
  and t.status = 'started';

comment on view pgflow.permanently_stalled_tasks is
'Tasks requeue_stalled_tasks gave up on after 3 requeues (their worker died each time) and
that nobody has resolved since: status still started, message archived. Alert on rows here; resolve by
failing (pgflow.fail_task) or completing the task.';

create index idx_step_tasks_permanently_stalled on pgflow.step_tasks (permanently_stalled_at)
  where permanently_stalled_at is not null;
