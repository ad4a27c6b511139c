-- register_worker: registers a worker process: inserts the pgflow.workers row (worker_id
-- chosen by the worker, fresh per process boot; queue_name = the flow slug it serves;
-- function_name = its deployment name) and returns it.

create function pgflow.register_worker(worker_id uuid, queue_name text, function_name text)
returns pgflow.workers
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_worker pgflow.workers;
  v_now timestamptz := pgflow._now();
begin
  if register_worker.worker_id is null then
    raise exception using errcode = 'null_value_not_allowed', message = 'worker_id must not be NULL';
  end if;
  insert into pgflow.workers (worker_id, queue_name, function_name, started_at, last_heartbeat_at)
  values (register_worker.worker_id, register_worker.queue_name, register_worker.function_name,
          v_now, v_now)
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
deployment name; started_at and last_heartbeat_at the engine''s time, pgflow._now()) and
returns it. Raises unique_violation when worker_id is already registered, so a restarted
process cannot inherit a dead one''s identity. pgflow-py: upstream workers insert the row
directly.';
