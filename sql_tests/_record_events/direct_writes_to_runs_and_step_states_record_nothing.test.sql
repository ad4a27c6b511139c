begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a started run of the sequential flow (first started, second and last created)
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) as before, max(id) as last_id from pgflow.run_events \gset

-- TEST: the transitions record their changes, not the tables: a run and its step states
-- inserted by hand write no event
insert into pgflow.runs (flow_slug, input, remaining_steps) values ('sequential', '{}', 3)
returning run_id as run2 \gset
insert into pgflow.step_states (flow_slug, run_id, step_slug, remaining_deps, initial_tasks, status, started_at,
                                remaining_tasks)
select 'sequential', :'run2', step_slug, deps_count, 1,
       case when deps_count = 0 then 'started' else 'created' end,
       case when deps_count = 0 then now() end,
       case when deps_count = 0 then 1 end
from pgflow.steps where flow_slug = 'sequential';
select is((select count(*) from pgflow.run_events), :before::bigint, 'a run and step states inserted by hand: nothing written');

-- TEST: status UPDATEs by hand write no event
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'run';
update pgflow.step_states set status = 'cancelled', cancelled_at = now() where run_id = :'run';
select is((select count(*) from pgflow.run_events), :before::bigint, 'runs and step_states updated by hand: nothing written');
update pgflow.runs set status = 'started', failed_at = null where run_id = :'run';
select is((select count(*) from pgflow.run_events), :before::bigint, 'and back: still nothing');

-- TEST: no trigger either on step_tasks: a task failed by hand is not recorded (fail_task is)
update pgflow.step_tasks set status = 'failed', failed_at = now(), error_message = 'by hand'
where run_id = :'run' and step_slug = 'first';
select is((select count(*) from pgflow.run_events where id > :last_id), 0::bigint,
  'step_tasks updated to failed by hand: nothing written');

select * from finish();
rollback;
