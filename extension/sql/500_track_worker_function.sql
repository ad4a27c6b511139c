-- Worker registry functions.

create function pgflow.track_worker_function(function_name text)
returns void
language sql
volatile
set search_path = pg_catalog, pg_temp
as $$
  insert into pgflow.worker_functions (function_name, created_at, updated_at)
  values (track_worker_function.function_name, (select pgflow._now()), (select pgflow._now()))
  on conflict (function_name) do update set updated_at = excluded.updated_at;
$$;

comment on function pgflow.track_worker_function(text) is
'Records that a worker for function_name (a deployment name) started: inserts the
worker_functions row or refreshes its updated_at (the engine''s time, pgflow._now()).
Called by workers at startup.
As upstream pgflow 0.14.1.';
