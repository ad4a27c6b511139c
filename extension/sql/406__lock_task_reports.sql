-- _lock_task_reports: lock the runs a batch of reports touches, in the one lock order.

create function pgflow._lock_task_reports(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- The runs, in key order, so that concurrent batches cannot deadlock. Their step_states
  -- and started tasks need no lock of their own: every transition that changes them holds
  -- their run first (the stalled-task sweep holds it FOR SHARE, SKIP LOCKED), and a claim
  -- changes only queued tasks. So while a batch holds its runs nobody else changes those
  -- rows, and each statement of the batch sees them as last committed.
  perform 1 from pgflow.runs as r
  where r.run_id = any(_lock_task_reports.run_ids)
  order by r.run_id
  for update;
end;
$$;

comment on function pgflow._lock_task_reports(uuid[]) is
'Locks the runs of run_ids (uuid[], repeats and NULLs allowed), FOR UPDATE and until the
transaction ends, in key order, so two batches of reports never deadlock. This is the
whole lock of a report: every transition that changes a step_state or a started task holds
its run first (the order run -> step_state -> step_task; requeue_stalled_tasks holds it FOR
SHARE and skips a locked run), and start_tasks changes only queued tasks (SKIP LOCKED), so
the step_states and started tasks of the runs held change under nobody else. Unknown ids
lock nothing. Waits for runs another transaction holds. pgflow-py internal, used by
complete_tasks and fail_tasks.';
