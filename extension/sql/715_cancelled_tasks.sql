-- cancelled_tasks: which of the tasks a worker is running have been cancelled.

create function pgflow.cancelled_tasks(run_ids uuid[], step_slugs text[], task_indexes int[])
returns table (run_id uuid, step_slug text, task_index int, run_status text)
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select t.run_id, t.step_slug, t.task_index, r.status
  from unnest(cancelled_tasks.run_ids, cancelled_tasks.step_slugs, cancelled_tasks.task_indexes)
    as k (run_id, step_slug, task_index)
  join pgflow.step_tasks as t
    on t.run_id = k.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
  join pgflow.runs as r on r.run_id = t.run_id
  where t.status = 'cancelled';
$$;

comment on function pgflow.cancelled_tasks(uuid[], text[], int[]) is
'Of the tasks (run_ids[i], step_slugs[i], task_indexes[i]) a worker is running, those that
are cancelled (their run was cancelled or failed, their step skipped or completed by hand),
with their run''s status: the worker tells their handlers (ctx.cancelled) and stops waiting
for them. Unknown tasks and tasks in any other status are left out. Reads only; arrays of
different lengths pair up as unnest does. pgflow-py extension, called by the worker at its
heartbeat.';
