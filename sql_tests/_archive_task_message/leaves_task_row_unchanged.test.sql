begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
create temp table before_task as select * from pgflow.step_tasks where run_id = :'run_id';
select pgflow._archive_task_message(:'run_id', 'first', 0);

-- TEST: only the message is touched
select results_eq(
  format('select * from pgflow.step_tasks where run_id = %L', :'run_id'),
  'select * from before_task',
  'the step_tasks row is not modified'
);

select * from finish();
rollback;
