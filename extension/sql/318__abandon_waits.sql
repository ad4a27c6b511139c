-- _abandon_waits: the waits of steps that stop waiting without an outcome end as abandoned.

create function pgflow._abandon_waits(run_ids uuid[], step_slugs text[] default null)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
begin
  update pgflow.wait_states as ws
  set resolved_at = v_now, outcome = 'abandoned'
  where ws.run_id = any(_abandon_waits.run_ids)
    and (_abandon_waits.step_slugs is null or ws.step_slug = any(_abandon_waits.step_slugs))
    and ws.resolved_at is null;
end;
$$;

comment on function pgflow._abandon_waits(uuid[], text[]) is
'Ends, as abandoned (resolved_at now), the unresolved waits of runs run_ids (of steps
step_slugs only, when given): their steps stopped waiting without a signal or a deadline
(the run failed or was cancelled, an operator skipped or completed the step). A repeated
call changes nothing. Called by _cancel_unfinished_work, skip_step and complete_step, which
hold the run rows. pgflow-py internal.';
