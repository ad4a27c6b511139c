-- _fail_run: mark a run failed and stop all of its outstanding work.

create function pgflow._fail_run(run_id uuid, error_message text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
begin
  update pgflow.runs as r
  set status = 'failed',
      failed_at = now()
  where r.run_id = _fail_run.run_id
    and r.status = 'started'
  returning r.* into v_run;
  if not found then
    return;
  end if;

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

  -- Every queued or started task of the run loses its message (late reports are no-ops).
  perform pgflow._archive_messages(v_run.flow_slug, array(
    select t.message_id
    from pgflow.step_tasks as t
    where t.run_id = v_run.run_id
      and t.status in ('queued', 'started')
      and t.message_id is not null
  ));
end;
$$;

comment on function pgflow._fail_run(uuid, text) is
'Fails run run_id if it is still started: status failed, failed_at now; broadcasts
run:failed (with error_message unless NULL); archives the messages of all its queued and
started tasks so no worker picks them up again. remaining_steps is left as it is.
No-op for a run that is already completed or failed.';
