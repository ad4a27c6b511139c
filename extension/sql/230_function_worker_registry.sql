-- Worker registry functions.

create function pgflow.track_worker_function(function_name text)
returns void
language sql
volatile
set search_path = pg_catalog, pg_temp
as $$
  insert into pgflow.worker_functions (function_name, updated_at)
  values (track_worker_function.function_name, clock_timestamp())
  on conflict (function_name) do update set updated_at = clock_timestamp();
$$;

comment on function pgflow.track_worker_function(text) is
'Records that a worker for function_name (a deployment name) started: inserts the
worker_functions row or refreshes its updated_at. Called by workers at startup.
As upstream pgflow 0.14.1.';

create function pgflow.mark_worker_stopped(worker_id uuid)
returns void
language sql
volatile
set search_path = pg_catalog, pg_temp
as $$
  update pgflow.workers as w
  set stopped_at = clock_timestamp()
  where w.worker_id = mark_worker_stopped.worker_id;
$$;

comment on function pgflow.mark_worker_stopped(uuid) is
'Stamps workers.stopped_at = clock_timestamp() for worker_id: the worker shut down
gracefully. Unknown ids are ignored. As upstream pgflow 0.14.1.';

create function pgflow.register_worker(worker_id uuid, queue_name text, function_name text)
returns pgflow.workers
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_worker pgflow.workers;
begin
  if register_worker.worker_id is null then
    raise exception using errcode = 'null_value_not_allowed', message = 'worker_id must not be NULL';
  end if;
  insert into pgflow.workers (worker_id, queue_name, function_name)
  values (register_worker.worker_id, register_worker.queue_name, register_worker.function_name)
  returning * into v_worker;
  return v_worker;
exception
  when unique_violation then
    raise exception using
      errcode = 'unique_violation',
      message = format('Worker %s is already registered', register_worker.worker_id),
      hint = 'Each worker process must register with a fresh worker_id (one per boot).';
end;
$$;

comment on function pgflow.register_worker(uuid, text, text) is
'Registers a worker process: inserts the pgflow.workers row (worker_id chosen by the worker,
fresh per process boot; queue_name = the flow slug it serves; function_name = its
deployment name) and returns it. Raises unique_violation when worker_id is already
registered, so a restarted process cannot inherit a dead one''s identity (cases B17, B25).
pgflow-py: upstream workers insert the row directly.';

create function pgflow.worker_heartbeat(worker_id uuid)
returns boolean
language sql
volatile
set search_path = pg_catalog, pg_temp
as $$
  update pgflow.workers as w
  set last_heartbeat_at = clock_timestamp()
  where w.worker_id = worker_heartbeat.worker_id
  returning w.deprecated_at is not null or w.stopped_at is not null;
$$;

comment on function pgflow.worker_heartbeat(uuid) is
'Refreshes last_heartbeat_at of worker worker_id and returns true when the worker must stop
reading (deprecated_at or stopped_at set), false when it may go on, NULL when the worker
row does not exist (pruned: the worker should register again). pgflow-py: upstream
workers update the row directly.';

create function pgflow.deprecate_worker(worker_id uuid)
returns void
language sql
volatile
set search_path = pg_catalog, pg_temp
as $$
  update pgflow.workers as w
  set deprecated_at = coalesce(w.deprecated_at, clock_timestamp())
  where w.worker_id = deprecate_worker.worker_id;
$$;

comment on function pgflow.deprecate_worker(uuid) is
'Marks worker worker_id deprecated (deprecated_at = now, kept if already set): at its next
heartbeat the worker stops reading new tasks and drains. Used on shutdown and by
operators during deploys. pgflow-py extension.';
