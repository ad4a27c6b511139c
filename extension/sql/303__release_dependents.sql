-- _release_dependents: steps that finished (completed or skipped) leave their run's count of
-- remaining steps and release their dependents (the one implementation of that bookkeeping).

create function pgflow._release_dependents(
  run_ids uuid[], step_slugs text[], complete_runs boolean default false
)
returns boolean
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_going text[];
begin
  if coalesce(cardinality(_release_dependents.run_ids), 0) = 0 then
    return false;
  end if;

  -- MUTATE 1: each run loses its finished steps, and with complete_runs a run with none
  -- left completes, in the same UPDATE (_complete_runs). Runs still going: whether some
  -- finished step has a dependent at all, or the flow has wait steps (a wait may end at
  -- any change, _advance_runs). Runs that completed, and steps without dependents (a
  -- leaf), stop here: the statement below is costly to set up even when it finds nothing.
  v_going := pgflow._complete_runs(_release_dependents.run_ids, count_off => true,
                                   complete => _release_dependents.complete_runs);
  if v_going is null then
    return false;
  end if;
  if not exists (
       select 1 from pgflow.deps as d
       where d.flow_slug = any(v_going) and d.dep_slug = any(_release_dependents.step_slugs)
     )
     and not exists (select 1 from pgflow.step_waits as w where w.flow_slug = any(v_going)) then
    return false;
  end if;

  -- MUTATE 2: each created dependent loses one pending parent per finished parent. A
  -- dependent map (one parent) learns its task count: 0 after a skipped parent, the task
  -- count of a parent map, the array length of a single parent's output (left NULL for a
  -- non-array: complete_tasks fails such a run before it gets here).
  with parents as (
    select ss.run_id, ss.flow_slug, ss.step_slug, ss.status, ss.initial_tasks, ss.output, s.step_type
    from unnest(_release_dependents.run_ids, _release_dependents.step_slugs) as k (run_id, step_slug)
    join pgflow.step_states as ss on ss.run_id = k.run_id and ss.step_slug = k.step_slug
    join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
  ),
  edges as (
    select p.run_id, p.flow_slug, d.step_slug as child_slug, count(*)::int as n,
      max(case
        when p.status = 'skipped' then 0
        when p.step_type = 'map' then p.initial_tasks
        when jsonb_typeof(p.output) = 'array' then jsonb_array_length(p.output)
      end) as parent_tasks
    from parents as p
    join pgflow.deps as d on d.flow_slug = p.flow_slug and d.dep_slug = p.step_slug
    group by p.run_id, p.flow_slug, d.step_slug
  ),
  children as materialized (
    select e.run_id, e.child_slug, e.n, cs.step_type = 'map' as is_map, e.parent_tasks
    from edges as e
    join pgflow.steps as cs on cs.flow_slug = e.flow_slug and cs.step_slug = e.child_slug
  )
  -- (the step type is read in `children`, so that each dependent is found by its full key:
  -- with `steps` joined here, the plan found the dependents through step_states_pkey by
  -- step_slug alone and read that step's state in every run at each call)
  update pgflow.step_states as ss
  set remaining_deps = ss.remaining_deps - c.n,
      initial_tasks = case
        when c.is_map and ss.initial_tasks is null then c.parent_tasks
        else ss.initial_tasks
      end
  from children as c
  -- (a cancelled dependent counts too: it is created again if its failed run is reopened)
  where ss.run_id = c.run_id and ss.step_slug = c.child_slug and ss.status in ('created', 'cancelled');
  return true;
end;
$$;

comment on function pgflow._release_dependents(uuid[], text[], boolean) is
'Bookkeeping after steps finished: (run_ids[i], step_slugs[i]) is a step that has just become
completed or skipped. Each run''s remaining_steps drops by its number of finished steps
(_complete_runs with count_off), and with complete_runs true a started or paused run left
with none completes in the same UPDATE (the caller has recorded and broadcast the steps''
own events: run:completed comes after them); each created (or cancelled: reset if its failed
run is reopened) dependent''s remaining_deps drops by its number of finished parents; a
dependent map whose task count is still unknown gets it: 0 after a skipped parent, the
parent''s task count for a parent map, the length of the parent''s array output for a single
parent. Starts nothing (_advance_runs does). Returns true when the runs may have more to do
(some finished step has a dependent in a run still going, or the flow has wait steps); false
when every run completed or nothing depends on the finished steps: then the caller need not
call _advance_runs unless a run may have no step left (complete_runs false). Must be called
exactly once per finished step (a second call would count it twice): callers call it for the
rows their own UPDATE just changed. Locks run rows, then step_states. pgflow-py internal,
used by _complete_steps, cascade_complete_taskless_steps, cascade_resolve_conditions,
_finish_waits, _skip_exhausted_step, skip_step and complete_step.';
