-- _park_queued_tasks: the queued tasks of paused runs lose their messages until resume_run
-- sends new ones (the one implementation of "a paused run starts no task").

create function pgflow._park_queued_tasks(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_flow record;
begin
  -- The task rows are locked first: a claim that has read one of these messages skips a
  -- locked task (start_tasks uses SKIP LOCKED), and one that locked it first has started
  -- it (it is no longer queued when the lock is granted, so it keeps its message).
  for v_flow in
    with parked as (
      select t.flow_slug, t.message_id
      from pgflow.step_tasks as t
      join pgflow.runs as r on r.run_id = t.run_id
      where t.run_id = any(_park_queued_tasks.run_ids)
        and r.status is not distinct from 'paused'
        and t.status is not distinct from 'queued'
        and t.message_id is not null
      for update of t
    )
    select p.flow_slug, array_agg(p.message_id) as msg_ids
    from parked as p
    group by p.flow_slug
  loop
    perform pgflow._archive_messages(v_flow.flow_slug, v_flow.msg_ids);
  end loop;
end;
$$;

comment on function pgflow._park_queued_tasks(uuid[]) is
'Parks the queued tasks of those runs of run_ids that are paused: their messages are
archived (pgmq keeps each message''s visibility time in the archive) while the tasks stay
queued with their message_id, so no worker can claim them; resume_run sends them new
messages (_resend_parked_tasks). Tasks of runs that are not paused are left alone; a repeated
call archives nothing more. The caller holds the runs'' rows. pgflow-py internal, used by
pause_run and by fail_task''s retry (a task queued again while its run is paused).
requeue_stalled_tasks leaves the tasks of paused runs alone: a stalled task of a paused run
is requeued after resume_run.';
