-- mark_worker_stopped: stamps workers.stopped_at = pgflow._now() for worker_id: the worker
-- shut down gracefully.

create function pgflow.mark_worker_stopped(worker_id uuid)
returns void
language sql
volatile
set search_path = pg_catalog, pg_temp
as $$
  update pgflow.workers as w
  set stopped_at = (select pgflow._now())
  where w.worker_id = mark_worker_stopped.worker_id;
$$;

comment on function pgflow.mark_worker_stopped(uuid) is
'Stamps workers.stopped_at = the engine''s time (pgflow._now()) for worker_id: the worker
shut down gracefully. Unknown ids are ignored. As upstream pgflow 0.14.1.';
