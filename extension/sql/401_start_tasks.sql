-- start_tasks: claims the tasks of flow flow_slug whose pgmq messages msg_ids a worker has
-- just read, for worker worker_id (a pgflow.workers row).

create function pgflow.start_tasks(flow_slug text, msg_ids bigint[], worker_id uuid)
returns setof pgflow.step_task_record
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  return query select * from pgflow._start_tasks(start_tasks.flow_slug, start_tasks.msg_ids,
                                                  start_tasks.worker_id, true);
end;
$$;

comment on function pgflow.start_tasks(text, bigint[], uuid) is
'Claims the tasks of flow flow_slug whose pgmq messages msg_ids a worker has just read,
for worker worker_id (a pgflow.workers row). Only tasks that are queued, in a started step
of a started run are claimed: attempts_count + 1, status started, started_at now,
last_worker_id; others are silently ignored, so fewer records than ids may come back. In
the same call each claimed message''s visibility timeout becomes the step timeout (else
the flow timeout) + 2 seconds. Returns step_task_record rows: input is the run input
element (root map), the parent output element (dependent map), {dep_slug: output} over
completed dependencies (dependent single step) or {} (root single step, whose flow_input
carries the run input; NULL for every other kind). NULL or empty msg_ids return nothing.
As upstream pgflow 0.14.1 _start_tasks.';
