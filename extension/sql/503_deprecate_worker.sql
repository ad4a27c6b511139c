-- deprecate_worker: marks worker worker_id deprecated (deprecated_at = pgflow._now(), kept if
-- already set): at its next heartbeat the worker stops reading new tasks and drains.

create function pgflow.deprecate_worker(worker_id uuid)
returns void
language sql
volatile
set search_path = pg_catalog, pg_temp
as $$
  update pgflow.workers as w
  set deprecated_at = coalesce(w.deprecated_at, (select pgflow._now()))
  where w.worker_id = deprecate_worker.worker_id;
$$;

comment on function pgflow.deprecate_worker(uuid) is
'Marks worker worker_id deprecated (deprecated_at = the engine''s time, pgflow._now(), kept
if already set): at its next heartbeat the worker stops reading new tasks and drains. Used
on shutdown and by operators during deploys. pgflow-py extension.';
