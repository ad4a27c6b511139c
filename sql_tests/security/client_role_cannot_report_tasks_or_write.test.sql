begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: a started run whose first task a worker has started
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.ensure_worker('sequential');
select run_id as run_id from pgflow.start_flow('sequential', '{}') \gset
select count(*) from pgflow_tests.read_and_start('sequential');

-- TEST: the worker protocol is refused
select is(pgflow_tests.sqlstate_as('pgflow_client',
  format($$select pgflow.complete_task(%L, 'first', 0, '{}')$$, :'run_id')), '42501',
  'pgflow_client cannot complete a task');
select is(pgflow_tests.sqlstate_as('pgflow_client',
  format($$select pgflow.fail_task(%L, 'first', 0, 'no')$$, :'run_id')), '42501',
  'pgflow_client cannot fail a task');
select is(pgflow_tests.sqlstate_as('pgflow_client',
  $$select pgflow.start_tasks('sequential', array[1]::bigint[], gen_random_uuid())$$), '42501',
  'pgflow_client cannot start tasks');
select is(pgflow_tests.sqlstate_as('pgflow_client', $$select pgflow.read_tasks('sequential', 30, 1)$$),
  '42501', 'pgflow_client cannot read task messages');

-- TEST: direct writes and worker rows are refused
select is(pgflow_tests.sqlstate_as('pgflow_client',
  $$update pgflow.runs set status = 'completed'$$), '42501', 'pgflow_client cannot UPDATE runs');
select is(pgflow_tests.sqlstate_as('pgflow_client',
  $$insert into pgflow.runs (flow_slug, input, remaining_steps) values ('sequential', '{}', 0)$$), '42501',
  'pgflow_client cannot INSERT runs');
select is(pgflow_tests.sqlstate_as('pgflow_client', $$select count(*) from pgflow.workers$$), '42501',
  'pgflow_client cannot read workers');

-- TEST: but it starts runs and reads them
select is(pgflow_tests.sqlstate_as('pgflow_client', $$select pgflow.start_flow('sequential', '{"n": 1}')$$),
  '00000', 'pgflow_client starts a run');
select is((select count(*)::int from pgflow.runs), 2, 'the run started by pgflow_client exists');

select * from finish();
rollback;
