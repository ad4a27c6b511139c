-- _reopen_run: a failed run goes back to started from where it failed (the one
-- implementation of "a failed run is retried").

create function pgflow._reopen_run(run_id uuid, reset_failed_steps boolean)
returns boolean
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_slugs text[];
  v_from jsonb[];
  v_task_slugs text[];
  v_task_indexes int[];
  v_task_attempts int[];
  v_flow pgflow.flows;
  v_concurrency_key text;
  v_deadline timestamptz;
begin
  -- GUARD: a run still holding a failed step that is not reset stays failed.
  if not _reopen_run.reset_failed_steps and exists (
    select 1 from pgflow.step_states as ss
    where ss.run_id = _reopen_run.run_id and ss.status = 'failed'
  ) then
    return false;
  end if;
  -- DEADLINE: a run whose deadline has passed does not start again (the tick would expire
  -- it at once, after its handlers ran again).
  select r.concurrency_key, r.deadline into v_concurrency_key, v_deadline
  from pgflow.runs as r where r.run_id = _reopen_run.run_id;
  if v_deadline <= pgflow._now() then
    raise exception using
      errcode = 'object_not_in_prerequisite_state',
      message = format('a failed run cannot start again: the deadline of run %s passed at %s',
                       _reopen_run.run_id, v_deadline),
      hint = 'Nothing was changed. rerun_flow starts a new run, with a new deadline.';
  end if;
  -- SLOT: a failed run freed its concurrency slot; it needs one again, now (no queueing).
  if v_concurrency_key is not null then
    select f.* into v_flow from pgflow.flows as f
    where f.flow_slug = (select r.flow_slug from pgflow.runs as r where r.run_id = _reopen_run.run_id);
    perform pgflow._take_concurrency_slot('a failed run cannot start again', v_flow, v_concurrency_key, false);
  end if;

  -- MUTATE: failed and cancelled steps are created again, with no task (their tasks and map
  -- inputs go, so each task gets a fresh attempt budget); completed and skipped steps keep
  -- their status and output. remaining_deps still counts their unfinished parents and
  -- initial_tasks stays known, as before they started; remaining_steps never counted them
  -- out.
  with reset as (
    update pgflow.step_states as ss
    set status = 'created',
        started_at = null,
        failed_at = null,
        cancelled_at = null,
        error_message = null,
        remaining_tasks = null
    where ss.run_id = _reopen_run.run_id
      and (ss.status = 'cancelled' or (_reopen_run.reset_failed_steps and ss.status = 'failed'))
    returning ss.step_slug, (select o.status from pgflow.step_states as o
                             where o.run_id = ss.run_id and o.step_slug = ss.step_slug) as was
  )
  select array_agg(r.step_slug order by r.step_slug),
         array_agg(jsonb_build_object('from', r.was) order by r.step_slug)
  into v_slugs, v_from
  from reset as r;
  if v_slugs is not null then
    perform pgflow._record_events(array['step:reset'],
      array_fill(_reopen_run.run_id, array[cardinality(v_slugs)]), v_slugs, details => v_from);
  end if;

  -- The attempt numbers go on: a report of an attempt made before the retry (a handler
  -- still running when the run failed) names an attempt the new tasks never had, and is
  -- ignored (stale_attempt); the retry budget counts from attempt_offset.
  select array_agg(t.step_slug), array_agg(t.task_index), array_agg(t.attempts_count)
  into v_task_slugs, v_task_indexes, v_task_attempts
  from pgflow.step_tasks as t
  where t.run_id = _reopen_run.run_id and t.step_slug = any(v_slugs) and t.attempts_count > 0;
  delete from pgflow.step_tasks as t
  where t.run_id = _reopen_run.run_id and t.step_slug = any(v_slugs);
  delete from pgflow.map_task_inputs as mi
  where mi.run_id = _reopen_run.run_id and mi.step_slug = any(v_slugs);

  update pgflow.runs as r
  set status = 'started',
      failed_at = null
  where r.run_id = _reopen_run.run_id;
  perform pgflow._record_events(array['run:retried'], array[_reopen_run.run_id]);

  -- CASCADE: ready steps start (conditions, empty maps), the run completes if nothing is left.
  -- Every step that had attempts had its dependencies completed, so it starts again here
  -- (unless its condition now skips it) and its new tasks take the numbering over.
  perform pgflow._advance_runs(array[_reopen_run.run_id]);
  update pgflow.step_tasks as t
  set attempts_count = k.attempts_count,
      attempt_offset = k.attempts_count
  from unnest(v_task_slugs, v_task_indexes, v_task_attempts) as k (step_slug, task_index, attempts_count)
  where t.run_id = _reopen_run.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
    and t.status is not distinct from 'queued' and t.attempts_count = 0;
  return true;
end;
$$;

comment on function pgflow._reopen_run(uuid, boolean) is
'Puts failed run run_id back to started from where it failed (a run whose deadline has
passed does not: object_not_in_prerequisite_state "a failed run cannot start again: the
deadline of run <id> passed at <t>", nothing written; a run with a concurrency_key
takes a slot again first: configuration_limit_exceeded (53400) "a failed run cannot start
again: concurrency limit of flow <f> for key <k> is reached ..." when none is free, nothing
written; _take_concurrency_slot): its cancelled steps (and its
failed steps when reset_failed_steps) become created again with no task (their step_tasks
and map_task_inputs are deleted; their earlier attempts stay in run_events); the new tasks
of a step that starts again go on with its attempt numbers (attempts_count and
attempt_offset = the old attempts_count, so a late report of an older attempt is ignored)
and a fresh retry budget (max_attempts counts from attempt_offset), failed_at is cleared, and the run moves on (_advance_runs).
Completed and skipped steps keep their status and output and are not run again;
remaining_steps and remaining_deps stay consistent (a failed or cancelled step was never
counted as finished). Returns false, changing nothing, when reset_failed_steps is false and
a failed step remains (the run stays failed). The caller holds the run row and has checked
that it is failed. pgflow-py internal, used by retry_run, skip_step and complete_step.';
