-- _set_worker_actor: the worker that claimed the reported tasks is the actor of a report's
-- events.

create function pgflow._set_worker_actor(run_ids uuid[], step_slugs text[], task_indexes int[])
returns text[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_worker_id uuid;
begin
  -- A caller that already said who acts keeps it.
  if coalesce(pg_catalog.current_setting('pgflow.actor', true), '') <> '' then
    return null;
  end if;
  -- The worker of the first report whose task has one (a call's reports come from one
  -- worker; a report of an unknown or requeued task names none).
  select t.last_worker_id into v_worker_id
  from unnest(_set_worker_actor.run_ids, _set_worker_actor.step_slugs, _set_worker_actor.task_indexes)
    with ordinality as k (run_id, step_slug, task_index, ord)
  join pgflow.step_tasks as t
    on t.run_id = k.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
  where t.last_worker_id is not null
  order by k.ord
  limit 1;
  if v_worker_id is null then
    return null;
  end if;
  return pgflow._set_actor('worker:' || v_worker_id::text, null);
end;
$$;

comment on function pgflow._set_worker_actor(uuid[], text[], int[]) is
'For a call reporting tasks (run_ids[i], step_slugs[i], task_indexes[i]): unless the setting
pgflow.actor is already set, sets it to worker:<the worker that claimed the first of these
tasks that has one> (and pgflow.reason unset) for the events the call causes, and returns
the previous {actor, reason} for the caller to set back (_set_actor); returns NULL,
changing nothing, when the actor was already set or no task has a worker. pgflow-py
internal, used by complete_tasks and fail_tasks.';
