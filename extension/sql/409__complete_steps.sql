-- _complete_steps: steps lose the tasks that just completed; the last task completes its step,
-- which then releases its dependents and moves its run forward.

create function pgflow._complete_steps(run_ids uuid[], step_slugs text[], outputs jsonb[], ords int[] default null)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_steps_run_ids uuid[];
  v_steps_slugs text[];
  v_steps_ords int[];
begin
  -- MUTATE: each step loses its completed tasks; the last one completes it with its output
  -- (a single step: the task output; a map: the task outputs in task_index order).
  with per_step as (
    select d.run_id, d.step_slug, count(*)::int as n, (array_agg(d.output))[1] as output,
      min(coalesce(_complete_steps.ords[d.pos], d.pos)) as first_ord
    from unnest(_complete_steps.run_ids, _complete_steps.step_slugs, _complete_steps.outputs)
      with ordinality as d (run_id, step_slug, output, pos)
    group by d.run_id, d.step_slug
  ),
  completed as (
    update pgflow.step_states as ss
    set remaining_tasks = ss.remaining_tasks - p.n,
        status = case when ss.remaining_tasks = p.n then 'completed' else ss.status end,
        completed_at = case when ss.remaining_tasks = p.n then v_now end,
        output = case
          when ss.remaining_tasks <> p.n then null
          when (select s.step_type from pgflow.steps as s
                where s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug) = 'map' then (
            select jsonb_agg(t.output order by t.task_index)
            from pgflow.step_tasks as t
            where t.run_id = ss.run_id and t.step_slug = ss.step_slug
          )
          else p.output
        end
    from per_step as p
    where ss.run_id = p.run_id and ss.step_slug = p.step_slug
    returning ss.run_id, ss.step_slug, ss.status, p.first_ord
  )
  select array_agg(c.run_id), array_agg(c.step_slug), array_agg(c.first_ord)
  into v_steps_run_ids, v_steps_slugs, v_steps_ords
  from completed as c
  where c.status = 'completed';
  if v_steps_run_ids is null then
    return;
  end if;
  perform pgflow._record_events(array['step:completed'], v_steps_run_ids, v_steps_slugs);

  if pgflow._realtime_enabled() then
    perform pgflow._broadcast(ss.run_id, 'step:' || ss.step_slug || ':completed',
      jsonb_build_object(
        'event_type', 'step:completed',
        'run_id', ss.run_id,
        'step_slug', ss.step_slug,
        'status', 'completed',
        'output', ss.output,
        'completed_at', ss.completed_at
      ))
    from unnest(v_steps_run_ids, v_steps_slugs, v_steps_ords) as k (run_id, step_slug, ord)
    join pgflow.step_states as ss on ss.run_id = k.run_id and ss.step_slug = k.step_slug
    order by k.ord;
  end if;

  -- CASCADE: dependents released, then the runs move forward (conditions, empty maps,
  -- ready steps start, runs complete).
  perform pgflow._release_dependents(v_steps_run_ids, v_steps_slugs);
  perform pgflow._advance_runs(v_steps_run_ids);
end;
$$;

comment on function pgflow._complete_steps(uuid[], text[], jsonb[], int[]) is
'Bookkeeping after tasks completed: (run_ids[i], step_slugs[i], outputs[i]) is a task that
has just become completed with that output (one element per task), reported at position
ords[i] of the call (ords NULL: i, the arrays are in report order). Each
step''s remaining_tasks drops by its number of completed tasks; a step reaching 0
completes (output: the task output for a single step, the task outputs in task_index
order for a map), broadcasts step:completed (in report order) when realtime is on,
releases its dependents (_release_dependents), and the runs of completed steps move
forward (_advance_runs). Must be called exactly once per completed task (callers pass the
rows their own UPDATE changed). The caller holds the run rows. pgflow-py internal.';
