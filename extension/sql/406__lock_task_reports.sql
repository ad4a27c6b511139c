-- _lock_task_reports: lock what a batch of reports touches, in the one lock order.

create function pgflow._lock_task_reports(run_ids uuid[], step_slugs text[], task_indexes int[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- Runs first, in key order; then each step_state followed by its tasks, in key order (the
  -- order of every transition: run -> step_state -> step_task), so that concurrent
  -- batches cannot deadlock. The task rows are only ever waited for by transitions that
  -- hold their run; start_tasks and requeue_stalled_tasks skip locked rows.
  perform 1 from pgflow.runs as r
  where r.run_id = any(_lock_task_reports.run_ids)
  order by r.run_id
  for update;

  -- Each task is found by its whole key, straight from the reports (joined before its
  -- step_state: found through the step_state, a cached plan may look it up by (run_id,
  -- step_slug) only and read every task of a map at each report). The sort, not the
  -- joins, gives the lock order.
  perform 1
  from unnest(_lock_task_reports.run_ids, _lock_task_reports.step_slugs, _lock_task_reports.task_indexes)
    as k (run_id, step_slug, task_index)
  join pgflow.step_tasks as t
    on t.run_id = k.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
  join pgflow.step_states as ss on ss.run_id = k.run_id and ss.step_slug = k.step_slug
  order by ss.run_id, ss.step_slug, t.task_index
  for update of ss, t;
end;
$$;

comment on function pgflow._lock_task_reports(uuid[], text[], int[]) is
'Locks, FOR UPDATE and until the transaction ends, the runs of run_ids in key order, then
each step_state (run_ids[i], step_slugs[i]) with its step_tasks (run_ids[i], step_slugs[i],
task_indexes[i]) right after it, in key order: the lock order of every transition (run ->
step_state -> step_task), so two batches of reports never deadlock. Unknown keys lock
nothing (nor does a step_state named only by unknown tasks). Waits for rows another transaction holds. pgflow-py internal, used by
complete_tasks and fail_tasks.';
