-- _complete_runs: complete the runs that have no remaining step (the one implementation of
-- "a run completes", its output included).

create function pgflow._complete_runs(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_run_ids uuid[];
  v_keyed uuid[];
begin
  -- MUTATE: a started run with no remaining step completes; its output is an object keyed
  -- by its completed leaf steps (no other step depends on them), NULL when there is none.
  with completed as (
    update pgflow.runs as r
    set status = 'completed',
        completed_at = v_now,
        paused_at = null,
        output = (
          select jsonb_object_agg(ss.step_slug, ss.output)
          from pgflow.step_states as ss
          where ss.run_id = r.run_id
            and ss.status = 'completed'
            and not exists (
              select 1 from pgflow.deps as d
              where d.flow_slug = ss.flow_slug and d.dep_slug = ss.step_slug
            )
        )
    where r.run_id = any(_complete_runs.run_ids)
      and (r.status is not distinct from 'started' or r.status is not distinct from 'paused')
      and r.remaining_steps = 0
    returning r.run_id, r.concurrency_key
  )
  select array_agg(c.run_id), array_agg(c.run_id) filter (where c.concurrency_key is not null)
  into v_run_ids, v_keyed
  from completed as c;
  if v_run_ids is null then
    return;
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
end;
$$;

comment on function pgflow._complete_runs(uuid[]) is
'Completes every run of run_ids (uuid[]) that is started or paused with remaining_steps = 0:
status completed, completed_at now (paused_at cleared), output a jsonb object {leaf_step_slug: output} over its
completed leaf steps (steps no other step depends on; skipped leaves are omitted; NULL
when there is none); broadcasts run:completed for each, in run_id order, when realtime is
on; runs with a concurrency_key free their slots (_release_concurrency_slots). Leaves every other run alone (never completes a failed run), so a repeated call
changes nothing. Callers hold the run rows. pgflow-py internal; maybe_complete_run is its
single-run form.';
