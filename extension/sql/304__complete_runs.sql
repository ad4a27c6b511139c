-- _complete_runs: count finished steps off their runs and complete the runs that have no
-- remaining step (the one implementation of "a run completes", its output included).

create function pgflow._complete_runs(
  run_ids uuid[], count_off boolean default false, complete boolean default true
)
returns text[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_run_ids uuid[];
  v_keyed uuid[];
  v_going text[];
begin
  -- MUTATE: with count_off, each element of run_ids is a step of that run that has just
  -- finished, and the run's remaining_steps drops by their number. In the same UPDATE (one
  -- row version per run, not two), unless complete is false: a started or paused run left
  -- with no remaining step completes; its output is an object keyed by its completed leaf
  -- steps (no other step depends on them), NULL when there is none. (A run counted off
  -- cannot have been completed before: it had steps left, so a completed status in
  -- RETURNING is new.)
  with changed as (
    update pgflow.runs as r
    set remaining_steps = r.remaining_steps - p.n,
        status = case
          when p.completes and r.remaining_steps = p.n and r.status in ('started', 'paused')
          then 'completed' else r.status end,
        completed_at = case
          when p.completes and r.remaining_steps = p.n and r.status in ('started', 'paused')
          then v_now else r.completed_at end,
        paused_at = case
          when p.completes and r.remaining_steps = p.n and r.status in ('started', 'paused')
          then null else r.paused_at end,
        output = case
          when p.completes and r.remaining_steps = p.n and r.status in ('started', 'paused')
          then (
            select jsonb_object_agg(ss.step_slug, ss.output)
            from pgflow.step_states as ss
            where ss.run_id = r.run_id
              and ss.status = 'completed'
              and not exists (
                select 1 from pgflow.deps as d
                where d.flow_slug = ss.flow_slug and d.dep_slug = ss.step_slug
              )
          )
          else r.output end
    from (
      select u.run_id, case when _complete_runs.count_off then count(*)::int else 0 end as n,
        _complete_runs.complete as completes
      from unnest(_complete_runs.run_ids) as u (run_id)
      group by u.run_id
    ) as p
    where r.run_id = p.run_id
      and (p.n > 0
           or (p.completes
               and (r.status is not distinct from 'started'
                    or r.status is not distinct from 'paused')
               and r.remaining_steps = 0))
    returning r.run_id, r.flow_slug, r.status, r.concurrency_key
  )
  select array_agg(c.run_id) filter (where c.status = 'completed'),
         array_agg(c.run_id)
           filter (where c.status = 'completed' and c.concurrency_key is not null),
         array_agg(distinct c.flow_slug) filter (where c.status is distinct from 'completed')
  into v_run_ids, v_keyed, v_going
  from changed as c;
  if v_run_ids is null then
    return v_going;
  end if;
  perform pgflow._record_events(array['run:completed'], v_run_ids);

  if pgflow._realtime_enabled() then
    perform pgflow._broadcast(r.run_id, 'run:completed',
      jsonb_build_object(
        'event_type', 'run:completed',
        'run_id', r.run_id,
        'flow_slug', r.flow_slug,
        'status', 'completed',
        'output', r.output,
        'completed_at', r.completed_at
      ))
    from unnest(v_run_ids) as k (run_id)
    join pgflow.runs as r on r.run_id = k.run_id
    order by r.run_id;
  end if;
  -- Their concurrency slots free: the queues behind their keys move on.
  if v_keyed is not null then
    perform pgflow._release_concurrency_slots(v_keyed);
  end if;
  return v_going;
end;
$$;

comment on function pgflow._complete_runs(uuid[], boolean, boolean) is
'Completes every run of run_ids (uuid[]) that is started or paused with remaining_steps = 0:
status completed, completed_at now (paused_at cleared), output a jsonb object
{leaf_step_slug: output} over its completed leaf steps (steps no other step depends on;
skipped leaves are omitted; NULL when there is none). count_off true: each element of
run_ids is one step of that run that has just finished (a run appears once per finished
step), and the run''s remaining_steps first drops by that number, in the same UPDATE (a run
whose last step finished completes with one row version); complete false: only that, no run
completes (the callers that complete runs later, after more events). Records run:completed,
broadcasts it for each completed run, in run_id order, when realtime is on; runs with a
concurrency_key free their slots (_release_concurrency_slots). Leaves every other run alone
(never completes a failed run), so a repeated call without count_off changes nothing; with
count_off each finished step must be counted once (_release_dependents and
_skip_exhausted_step call it so).
Returns the distinct flow slugs of the runs counted off that did not complete (NULL when
none): the runs whose dependents may still need releasing. Callers hold the run rows.
pgflow-py internal; maybe_complete_run is its single-run form.';
