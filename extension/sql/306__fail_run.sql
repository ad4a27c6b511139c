-- _fail_run: mark a run failed and stop all of its outstanding work.

create function pgflow._fail_run(run_id uuid, error_message text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_run pgflow.runs;
begin
  update pgflow.runs as r
  set status = 'failed',
      failed_at = v_now,
      paused_at = null
  where r.run_id = _fail_run.run_id
    and r.status in ('started', 'paused')
  returning r.* into v_run;
  if not found then
    return;
  end if;
  perform pgflow._record_events(array['run:failed'], array[v_run.run_id], details => array[case when _fail_run.error_message is not null
               then jsonb_build_object('error_message', _fail_run.error_message) end]);

  if pgflow._realtime_enabled() then
    perform pgflow._broadcast(v_run.run_id, 'run:failed',
      jsonb_build_object(
        'event_type', 'run:failed',
        'run_id', v_run.run_id,
        'flow_slug', v_run.flow_slug,
        'status', 'failed',
        'failed_at', v_run.failed_at
      ) || case
        when _fail_run.error_message is null then '{}'::jsonb
        else jsonb_build_object('error_message', _fail_run.error_message)
      end);
  end if;

  -- Nothing of the run stays live: unfinished steps and tasks are cancelled, their messages
  -- archived (late reports are no-ops).
  perform pgflow._cancel_unfinished_work(array[v_run.run_id]);
  -- Its concurrency slot frees: the queue behind its key moves on.
  if v_run.concurrency_key is not null then
    perform pgflow._release_concurrency_slots(array[v_run.run_id]);
  end if;
end;
$$;

comment on function pgflow._fail_run(uuid, text) is
'Fails run run_id if it is still started or paused: status failed, failed_at now (paused_at
cleared); broadcasts run:failed (with error_message unless NULL); its unfinished steps and
tasks are cancelled and their messages archived (_cancel_unfinished_work) so no worker picks
them up again; a run with a concurrency_key frees its slot (_release_concurrency_slots).
remaining_steps is left as it is. No-op for a run that is already
completed, failed or cancelled.';
