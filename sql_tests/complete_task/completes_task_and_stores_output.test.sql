begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');
create temp table returned as
  select * from pgflow.complete_task(:'run_id', 'first', 0, '{"result": 42}'::jsonb);

-- TEST: the task is completed with its output
select results_eq(
  format($$select status, output, completed_at is not null, failed_at
           from pgflow.step_tasks where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('completed'::text, '{"result": 42}'::jsonb, true, null::timestamptz)$$,
  'the task is completed with completed_at and the given output'
);

-- TEST: the returned row is the task row
select results_eq(
  'select * from returned',
  format($$select * from pgflow.step_tasks where run_id = %L and step_slug = 'first'$$, :'run_id'),
  'complete_task returns the updated step_tasks row'
);

-- TEST: the step stores the output too
select results_eq(
  format($$select status, remaining_tasks, output, completed_at is not null
           from pgflow.step_states where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('completed'::text, 0, '{"result": 42}'::jsonb, true)$$,
  'a single step is completed with output = the task output'
);

select * from finish();
rollback;
