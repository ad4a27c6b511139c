-- maybe_complete_run: complete a run whose steps are all completed or skipped.

create function pgflow.maybe_complete_run(run_id uuid)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
begin
  update pgflow.runs as r
  set status = 'completed',
      completed_at = now(),
      output = (
        -- Leaf steps (no dependents) that completed; skipped leaves are omitted.
        select jsonb_object_agg(ss.step_slug, ss.output)
        from pgflow.step_states as ss
        where ss.run_id = r.run_id
          and ss.status = 'completed'
          and not exists (
            select 1 from pgflow.deps as d
            where d.flow_slug = ss.flow_slug and d.dep_slug = ss.step_slug
          )
      )
  where r.run_id = maybe_complete_run.run_id
    and r.status = 'started'
    and r.remaining_steps = 0
  returning r.* into v_run;

  if found and pgflow._realtime_enabled() then
    perform pgflow._broadcast(v_run.run_id, 'run:completed',
      jsonb_build_object(
        'event_type', 'run:completed',
        'run_id', v_run.run_id,
        'flow_slug', v_run.flow_slug,
        'status', 'completed',
        'output', v_run.output,
        'completed_at', v_run.completed_at
      ));
  end if;
end;
$$;

comment on function pgflow.maybe_complete_run(uuid) is
'Completes run run_id when it is started and remaining_steps = 0: status completed,
completed_at now, output = {leaf_step_slug: output} over completed leaf steps (steps with
no dependents; skipped leaves omitted; NULL when none). Broadcasts run:completed.
Otherwise does nothing (never completes a failed run). As upstream pgflow 0.14.1.';
