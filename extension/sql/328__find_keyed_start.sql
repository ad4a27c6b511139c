-- _find_keyed_start: the run an earlier start of a flow made with this idempotency key.

create function pgflow._find_keyed_start(flow pgflow.flows, idempotency_key text, concurrency_key text)
returns uuid
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run_id uuid;
begin
  -- LOCK a limited concurrency key first: a concurrent start with the same keys has then
  -- committed (its run is found below) or rolled back, rather than holding the slot this
  -- start would be refused for.
  if _find_keyed_start.concurrency_key is not null and (_find_keyed_start.flow).opt_concurrency_limit is not null then
    perform pgflow._lock_concurrency_key((_find_keyed_start.flow).flow_slug, _find_keyed_start.concurrency_key);
  end if;
  select r.run_id into v_run_id
  from pgflow.runs as r
  where r.flow_slug = (_find_keyed_start.flow).flow_slug and r.idempotency_key = _find_keyed_start.idempotency_key;
  return v_run_id;
end;
$$;

comment on function pgflow._find_keyed_start(pgflow.flows, text, text) is
'Returns the run_id of the run of flow (a flows row) started with idempotency_key, or NULL
when there is none (the key is not NULL). When the start also has a concurrency_key of a
flow with a concurrency_limit, takes the key''s lock first (_lock_concurrency_key, held
until commit), so that a concurrent start with the same keys is found once it committed.
Writes nothing else. pgflow-py internal, called by start_flow (before its insert, and after
an insert that a concurrent start with the same key made a no-op).';
