-- worker_heartbeat: refreshes last_heartbeat_at of worker worker_id and returns true when the
-- worker must stop reading (deprecated_at or stopped_at set), false when it may go on, NULL
-- when the worker row does not exist (pruned: the worker should register again).

create function pgflow.worker_heartbeat(worker_id uuid)
returns boolean
language sql
volatile
set search_path = pg_catalog, pg_temp
as $$
  update pgflow.workers as w
  set last_heartbeat_at = (select pgflow._now())
  where w.worker_id = worker_heartbeat.worker_id
  returning w.deprecated_at is not null or w.stopped_at is not null;
$$;

comment on function pgflow.worker_heartbeat(uuid) is
'Refreshes last_heartbeat_at of worker worker_id (to the engine''s time, pgflow._now()) and
returns true when the worker must stop reading (deprecated_at or stopped_at set), false
when it may go on, NULL when the worker row does not exist (pruned: the worker should
register again). pgflow-py: upstream
workers update the row directly.';
