-- requeue_stalled_tasks: requeue tasks whose worker disappeared (stalled tasks), on the
-- engine's clock (pgflow._now()); a task that stalls again after 3 requeues is given up on
-- (permanently stalled) and its step's when_exhausted applies.

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
  v_given_up record;
  v_previous text[];
  v_failed record;
  v_stamped record;
  v_now timestamptz;
  v_oldest_fresh timestamptz;
begin
  -- One call at a time; a concurrent call returns 0 at once (the running one covers it).
  -- Transaction-scoped, so a killed call leaves no lock behind.
  if not pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtext('pgflow.requeue_stalled_tasks')) then
    return 0;
  end if;
  v_now := pgflow._now();
  -- No task started after this can be stalled (the shortest timeout of any step + 30 s):
  -- a bound idx_step_tasks_started_at can serve, so a call reads the tasks old enough to
  -- be stalled, not every started task. NULL (no flow) finds nothing.
  v_oldest_fresh := v_now - pg_catalog.make_interval(secs => (
    select min(coalesce(s.opt_timeout, f.opt_timeout)) + 30
    from pgflow.steps as s join pgflow.flows as f on f.flow_slug = s.flow_slug));

  -- GIVE UP: a task that stalled again after 3 requeues fails for good, without spending
  -- its remaining attempts, and its step's when_exhausted decides (fail the run, skip the
  -- step), as for a task that used up its attempts; the events name the actor system.
  -- Through fail_tasks, which locks in the one order (run -> step_state -> step_task) and
  -- re-checks each task (a report that arrived meanwhile wins).
  select array_agg(t.run_id) as run_ids, array_agg(t.step_slug) as step_slugs,
         array_agg(t.task_index) as task_indexes, array_agg(t.attempts_count) as attempts
  into v_given_up
  from pgflow.step_tasks as t
  join pgflow.steps as s on s.flow_slug = t.flow_slug and s.step_slug = t.step_slug
  join pgflow.flows as f on f.flow_slug = t.flow_slug
  join pgflow.runs as r on r.run_id = t.run_id
  join pgflow.step_states as ss on ss.run_id = t.run_id and ss.step_slug = t.step_slug
  where t.status = 'started'
    and r.status is not distinct from 'started'
    and ss.status = 'started'
    and t.requeued_count >= 3
    and t.permanently_stalled_at is null
    and t.started_at < v_oldest_fresh
    and t.started_at < v_now - make_interval(secs => coalesce(s.opt_timeout, f.opt_timeout) + 30);
  if v_given_up.run_ids is not null then
    v_previous := pgflow._set_actor('system', 'stalled again after 3 requeues');
    -- Only the tasks this call failed are marked given up (a report may have won the lock).
    select array_agg(f.run_id) as run_ids, array_agg(f.step_slug) as step_slugs,
           array_agg(f.task_index) as task_indexes
    into v_failed
    from pgflow.fail_tasks(v_given_up.run_ids, v_given_up.step_slugs, v_given_up.task_indexes,
      array_fill('Task stalled: its worker stopped without reporting 4 times (3 requeues); given up'::text,
                 array[cardinality(v_given_up.run_ids)]),
      v_given_up.attempts,
      array_fill(true, array[cardinality(v_given_up.run_ids)])) as f
    where f.outcome = 'failed';
    with stamped as (
      update pgflow.step_tasks as t
      set permanently_stalled_at = v_now
      from unnest(v_failed.run_ids, v_failed.step_slugs, v_failed.task_indexes) as k (run_id, step_slug, task_index)
      where t.run_id = k.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
      returning t.run_id, t.step_slug, t.task_index, t.attempts_count, t.requeued_count
    )
    select array_agg(st.run_id) as run_ids, array_agg(st.step_slug) as step_slugs,
           array_agg(st.task_index) as task_indexes,
           array_agg(jsonb_build_object('attempt', st.attempts_count, 'requeued_count', st.requeued_count)) as details
    into v_stamped
    from stamped as st;
    perform pgflow._record_events(array['task:permanently_stalled'], v_stamped.run_ids,
      v_stamped.step_slugs, v_stamped.task_indexes, v_stamped.details);
    perform pgflow._set_actor(v_previous[1], v_previous[2]);
  end if;

  -- Stalled: started longer ago than the step's effective timeout (step, else flow) plus a
  -- 30-second buffer, on the engine's clock (pgflow._now()). Rows are locked SKIP LOCKED and
  -- the UPDATE re-checks status and started_at, so a task completed, failed or restarted
  -- meanwhile is never touched.
  for v_flow in
    with stalled as (
      select t.run_id, t.step_slug, t.task_index, t.started_at, t.requeued_count
      from pgflow.step_tasks as t
      join pgflow.steps as s on s.flow_slug = t.flow_slug and s.step_slug = t.step_slug
      join pgflow.flows as f on f.flow_slug = t.flow_slug
      join pgflow.runs as r on r.run_id = t.run_id
      join pgflow.step_states as ss on ss.run_id = t.run_id and ss.step_slug = t.step_slug
      where t.status = 'started'
        and r.status is not distinct from 'started'
        and ss.status = 'started'
        and t.permanently_stalled_at is null
        and t.requeued_count < 3  -- the others are given up on above, or left to the next call
        and t.started_at < v_oldest_fresh
        and t.started_at < v_now - make_interval(secs => coalesce(s.opt_timeout, f.opt_timeout) + 30)
      -- The run too (shared): a run a verb holds (pause_run, cancel_run) is left for the next
      -- call, and a verb that comes later waits for this requeue and then sees the task queued.
      for update of t skip locked
      for share of r skip locked
    ),
    swept as (
      update pgflow.step_tasks as t
      set status = 'queued',
          started_at = null,
          last_worker_id = null,
          requeued_count = t.requeued_count + 1,
          last_requeued_at = v_now
      from stalled as st
      where t.run_id = st.run_id
        and t.step_slug = st.step_slug
        and t.task_index = st.task_index
        and t.status = 'started'
        and t.started_at = st.started_at
      returning t.flow_slug, t.message_id, t.run_id, t.step_slug, t.task_index,
                jsonb_build_object('attempt', t.attempts_count, 'requeued_count', t.requeued_count) as details
    )
    select
      sw.flow_slug,
      coalesce(array_agg(sw.message_id) filter (where sw.message_id is not null), '{}') as requeue_ids,
      count(*) as requeued,
      array_agg(sw.run_id) as run_ids, array_agg(sw.step_slug) as step_slugs,
      array_agg(sw.task_index) as task_indexes, array_agg(sw.details) as details
    from swept as sw
    group by sw.flow_slug
  loop
    perform pgflow._record_events(array['task:requeued'], v_flow.run_ids, v_flow.step_slugs,
      v_flow.task_indexes, v_flow.details);
    -- Requeued: the message becomes visible now.
    perform pgflow.set_vt_batch(v_flow.flow_slug, v_flow.requeue_ids,
                                array_fill(0, array[cardinality(v_flow.requeue_ids)]));
    -- The requeued tasks no longer hold slots of their steps' max_in_flight.
    perform pgflow._release_throttled_messages(v_flow.flow_slug, null);
    v_requeued := v_requeued + v_flow.requeued;
  end loop;

  return v_requeued;
end;
$$;

comment on function pgflow.requeue_stalled_tasks() is
'Requeues stalled tasks. A task is stalled when it is started in a started step of a
started run (tasks left behind by a failed run or a skipped step are not work any more),
not permanently stalled, and its started_at is older than coalesce(step timeout, flow
timeout) + 30 seconds (the engine''s time, pgflow._now()). Requeued up to 3 times (status
queued, started_at and last_worker_id NULL, requeued_count + 1, last_requeued_at now,
message visible at once; attempts_count unchanged, so a late report of the old attempt is
fenced by complete_task / fail_task''s attempt argument). A task that stalls again after 3
requeues is given up on (#12): it fails for good through fail_tasks (permanent: its
remaining attempts are not spent; error "Task stalled: ... given up"), its step''s
when_exhausted applies (fail the step and the run, or skip the step / skip it with its
dependents), permanently_stalled_at is stamped, and run_events records task:failed,
task:permanently_stalled and what followed with actor system. (A task stamped by an earlier
version, still started, stays listed in view pgflow.permanently_stalled_tasks.) Tasks of
paused runs are left alone until resume_run. Returns the number of tasks requeued. Safe to
run concurrently: a second concurrent call returns 0 (try advisory lock), rows are locked
SKIP LOCKED and re-checked, so a task completed meanwhile is never touched; a repeated call
requeues nothing new. Does not depend on pgflow.workers rows. As upstream pgflow 0.14.1
requeue_stalled_tasks, except that the timeout is the step''s own when set (upstream: the
flow''s; compat/UPSTREAM.md).';

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
'Tasks given up on after 3 requeues (their worker died each time) that are still started,
message archived: left by versions before 0.2.0, which did not apply when_exhausted to
them (requeue_stalled_tasks now fails such a task and its step''s policy applies). Alert on rows here; resolve by
failing (pgflow.fail_task) or completing the task.';

create index idx_step_tasks_permanently_stalled on pgflow.step_tasks (permanently_stalled_at)
  where permanently_stalled_at is not null;
