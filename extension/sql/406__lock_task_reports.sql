-- _lock_task_reports: lock what a batch of reports touches, in the one lock order.

create function pgflow._lock_task_reports(run_ids uuid[], step_slugs text[], task_indexes int[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- runs, then step_states, then step_tasks (the order of every transition), each in key
  -- order so that concurrent batches cannot deadlock.
  perform 1 from pgflow.runs as r
  where r.run_id = any(_lock_task_reports.run_ids)
  order by r.run_id
  for update;

  perform 1
  from pgflow.step_states as ss
  join unnest(_lock_task_reports.run_ids, _lock_task_reports.step_slugs) as k (run_id, step_slug)
    on ss.run_id = k.run_id and ss.step_slug = k.step_slug
  order by ss.run_id, ss.step_slug
  for update of ss;

  perform 1
  from pgflow.step_tasks as t
  join unnest(_lock_task_reports.run_ids, _lock_task_reports.step_slugs, _lock_task_reports.task_indexes)
    as k (run_id, step_slug, task_index)
    on t.run_id = k.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
  order by t.run_id, t.step_slug, t.task_index
  for update of t;
end;
$$;

comment on function pgflow._lock_task_reports(uuid[], text[], int[]) is
'Locks, FOR UPDATE and until the transaction ends, the runs of run_ids, then the
step_states (run_ids[i], step_slugs[i]), then the step_tasks (run_ids[i], step_slugs[i],
task_indexes[i]), each table in key order: the lock order of every transition (run ->
step_state -> step_task), so two batches of reports never deadlock. Unknown keys lock
nothing. Waits for rows another transaction holds. pgflow-py internal, used by
complete_tasks and fail_tasks.';
