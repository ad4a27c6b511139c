-- _record_events: the audit trail of run and step status changes, written by the transition
-- that makes them, in its transaction, one INSERT per transition and batch.

create function pgflow._record_events(
  events text[],
  run_ids uuid[],
  step_slugs text[] default null,
  task_indexes int[] default null,
  details jsonb[] default null,
  default_actor text default 'system'
)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
begin
  -- created_at from one read of the engine's time, not the column default's read per row
  insert into pgflow.run_events (run_id, step_slug, task_index, event, actor, reason, details, created_at)
  select k.run_id, k.step_slug, k.task_index,
    case when cardinality(_record_events.events) = 1 then _record_events.events[1]
         else _record_events.events[k.ord] end,
    coalesce(nullif(pg_catalog.current_setting('pgflow.actor', true), ''), _record_events.default_actor),
    nullif(pg_catalog.current_setting('pgflow.reason', true), ''),
    k.details,
    v_now
  from unnest(_record_events.run_ids, _record_events.step_slugs, _record_events.task_indexes,
              _record_events.details)
    with ordinality as k (run_id, step_slug, task_index, details, ord)
  where k.run_id is not null;
end;
$$;

comment on function pgflow._record_events(text[], uuid[], text[], int[], jsonb[], text) is
'Writes one pgflow.run_events row per element of run_ids (in array order): events (one name
for every row, or one per row: run:started,
run:completed, run:failed, run:cancelled, run:paused, run:resumed, run:retried, step:started,
step:completed, step:failed, step:skipped, step:cancelled, step:reset, task:failed,
task:requeued, task:permanently_stalled), step_slugs[i] (NULL or a NULL array: a run
event), task_indexes[i] (a task event), details[i] (jsonb or NULL). actor: the setting pgflow.actor
when set (the run-control verbs and the report functions set it, _set_actor), else
default_actor (system; app for start_flow); reason: the setting pgflow.reason. Called by
each transition right after its UPDATE or INSERT, with the rows that changed, so each change
is recorded once. pgflow-py internal.';
