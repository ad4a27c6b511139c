begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root step that requires {"role": "admin"}
select pgflow.create_flow('cond');
select pgflow.add_step('cond', 'admin_only', required_input_pattern => '{"role": "admin"}');
select run_id from pgflow.start_flow('cond', '{"role": "admin", "name": "Ann"}'::jsonb) \gset

-- TEST: the run input contains the pattern, so the step runs
select is(
  (select status from pgflow.step_states where run_id = :'run_id'),
  'started',
  'a root step whose required pattern is contained in the run input is started'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id'),
  1,
  'its task is queued'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'remaining_steps is unchanged'
);

select * from finish();
rollback;
