begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a started task
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'first');

-- TEST: arrays of different lengths and NULL keys raise; empty arrays do nothing
select throws_ok(
  format($$select * from pgflow.fail_tasks(array[%L]::uuid[], array['first'], array[0], array['x', 'y'])$$, :'run'),
  '22023',
  'fail_tasks: run_ids, step_slugs, task_indexes, error_messages and attempts must have the same length (got 1, 1, 1, 2 and NULL)',
  'arrays of different lengths raise invalid_parameter_value'
);
select throws_ok(
  $$select * from pgflow.fail_tasks(array[null]::uuid[], array['first'], array[0], array['x'])$$,
  '22004',
  'fail_tasks: run_ids, step_slugs and task_indexes may not contain NULL',
  'a NULL key raises null_value_not_allowed'
);
select is((select status from pgflow.step_tasks where run_id = :'run'), 'started', 'the task is still started');
select is((select count(*)::int from pgflow.fail_tasks('{}', '{}', '{}', '{}')), 0, 'empty arrays return nothing');

select * from finish();
rollback;
