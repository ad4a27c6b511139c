begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: a started run with a queued task
select pgflow_tests.setup_flow('sequential');
select run_id as run_id from pgflow.start_flow('sequential', '{}') \gset

-- TEST: direct writes are refused
select is(pgflow_tests.sqlstate_as('pgflow_worker',
  $$update pgflow.step_tasks set status = 'completed'$$), '42501', 'pgflow_worker cannot UPDATE step_tasks');
select is(pgflow_tests.sqlstate_as('pgflow_worker',
  $$update pgflow.runs set status = 'failed'$$), '42501', 'pgflow_worker cannot UPDATE runs');
select is(pgflow_tests.sqlstate_as('pgflow_worker',
  $$delete from pgflow.step_states$$), '42501', 'pgflow_worker cannot DELETE step_states');
select is(pgflow_tests.sqlstate_as('pgflow_worker',
  $$insert into pgflow.flows (flow_slug) values ('sneaky')$$), '42501', 'pgflow_worker cannot INSERT flows');
select is(pgflow_tests.sqlstate_as('pgflow_worker',
  $$insert into pgflow.workers (worker_id, queue_name, function_name) values (gen_random_uuid(), 'q', 'f')$$),
  '42501', 'pgflow_worker cannot INSERT workers (register_worker does)');

-- TEST: functions that are not the worker's are refused
select is(pgflow_tests.sqlstate_as('pgflow_worker', $$select pgflow.start_flow('sequential', '{}')$$),
  '42501', 'pgflow_worker cannot start runs');
select is(pgflow_tests.sqlstate_as('pgflow_worker', $$select pgflow.delete_flow_and_data('sequential')$$),
  '42501', 'pgflow_worker cannot delete flows');
select is(pgflow_tests.sqlstate_as('pgflow_worker', $$select * from pgmq.read('sequential', 30, 1)$$),
  '42501', 'pgflow_worker cannot read pgmq queues directly');

-- TEST: nothing changed
select is((select status from pgflow.runs where run_id = :'run_id'), 'started', 'the run is untouched');

select * from finish();
rollback;
