-- delete_flow_and_data: deletes flow p_flow_slug with everything it owns: its pgmq queue and
-- archive (a NOTICE, not an error, when the queue is absent), its schedules and their pg_cron
-- jobs, task rows, step states, runs, dependencies, steps and the flow row.

create function pgflow.delete_flow_and_data(p_flow_slug text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if exists (select 1 from pgmq.meta as m where m.queue_name = p_flow_slug) then
    perform pgmq.drop_queue(p_flow_slug);
  else
    raise notice 'pgflow.delete_flow_and_data: queue % does not exist', p_flow_slug;
  end if;
  if exists (select 1 from pg_catalog.pg_extension as e where e.extname = 'pg_cron') then
    perform pgflow.unschedule_flow(sc.flow_slug, sc.schedule_name)
    from pgflow.schedules as sc where sc.flow_slug = p_flow_slug;
  end if;
  delete from pgflow.schedules as sc where sc.flow_slug = p_flow_slug;
  delete from pgflow.map_task_inputs as mi
  using pgflow.runs as r
  where mi.run_id = r.run_id and r.flow_slug = p_flow_slug;
  delete from pgflow.throttled_messages as tm where tm.flow_slug = p_flow_slug;
  delete from pgflow.step_tasks as t where t.flow_slug = p_flow_slug;
  delete from pgflow.wait_states as ws where ws.flow_slug = p_flow_slug;
  delete from pgflow.signals as sg
  using pgflow.runs as r
  where sg.run_id = r.run_id and r.flow_slug = p_flow_slug;
  delete from pgflow.step_states as ss where ss.flow_slug = p_flow_slug;
  delete from pgflow.run_events as e
  using pgflow.runs as r
  where e.run_id = r.run_id and r.flow_slug = p_flow_slug;
  delete from pgflow.runs as r where r.flow_slug = p_flow_slug;
  delete from pgflow.run_stats as rs where rs.flow_slug = p_flow_slug;
  delete from pgflow.step_stats as sst where sst.flow_slug = p_flow_slug;
  delete from pgflow.deps as d where d.flow_slug = p_flow_slug;
  delete from pgflow.step_waits as w where w.flow_slug = p_flow_slug;
  delete from pgflow.steps as s where s.flow_slug = p_flow_slug;
  delete from pgflow.flows as f where f.flow_slug = p_flow_slug;
end;
$$;

comment on function pgflow.delete_flow_and_data(text) is
'Deletes flow p_flow_slug with everything it owns: its pgmq queue and archive (a NOTICE,
not an error, when the queue is absent), its schedules and their pg_cron jobs, task rows and map task inputs, waits and signals
(pgflow-py), step states, runs and their events, its run and step stats (pgflow-py), dependencies, step waits, steps and the
flow row. Irreversible; meant for development and recompilation.
As upstream pgflow 0.14.1.';
