-- get_run_slot: where a run with a concurrency key stands: holding a slot, or its place in
-- the queue, and which runs hold the slots.

create function pgflow.get_run_slot(run_id uuid)
returns table (
  concurrency_key text,
  concurrency_limit int,
  on_limit text,
  queue_position int,
  holders uuid[]
)
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
begin
  select r.* into v_run from pgflow.runs as r where r.run_id = get_run_slot.run_id;
  if not found then
    raise exception using
      errcode = 'no_data_found',
      message = format('get_run_slot: run %s does not exist', coalesce(get_run_slot.run_id::text, 'NULL'));
  end if;
  if v_run.concurrency_key is null then
    return;
  end if;
  return query
  select v_run.concurrency_key, f.opt_concurrency_limit, f.opt_on_limit,
    case when v_run.status = 'queued' then (
      select count(*)::int + 1 from pgflow.runs as q
      where q.flow_slug = v_run.flow_slug and q.concurrency_key = v_run.concurrency_key
        and q.status = 'queued' and q.queue_seq < v_run.queue_seq) end,
    coalesce((
      select array_agg(h.run_id order by h.started_at, h.run_id) from pgflow.runs as h
      where h.flow_slug = v_run.flow_slug and h.concurrency_key = v_run.concurrency_key
        and h.status in ('started', 'paused')), '{}')
  from pgflow.flows as f
  where f.flow_slug = v_run.flow_slug;
end;
$$;

comment on function pgflow.get_run_slot(uuid) is
'Where run run_id stands with its concurrency key, as pgflow status shows it: one row
(concurrency_key, concurrency_limit (NULL: the flow has none), on_limit (queue | reject),
queue_position (1 = the next to start; NULL unless the run is queued), holders (the runs
of the flow with that key that hold a slot now, started or paused, oldest first; may
include run_id itself)); no row for a run without concurrency_key. Reads only, on the
caller''s snapshot. Raises no_data_found "get_run_slot: run <id> does not exist".
pgflow-py extension.';
