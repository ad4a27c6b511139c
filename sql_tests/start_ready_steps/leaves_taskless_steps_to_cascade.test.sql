begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> reducer; mapper made ready with 0 tasks,
-- and a second run where mapper is ready but its task count is still unknown
select pgflow_tests.setup_flow('map_chain');
select run_id as run_zero from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select run_id as run_null from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
update pgflow.step_states set remaining_deps = 0, initial_tasks = 0
where run_id = :'run_zero' and step_slug = 'mapper';
update pgflow.step_states set remaining_deps = 0
where run_id = :'run_null' and step_slug = 'mapper';

-- TEST: a step with initial_tasks 0 is not started here
select pgflow.start_ready_steps(:'run_zero');
select is(
  (select status from pgflow.step_states where run_id = :'run_zero' and step_slug = 'mapper'),
  'created',
  'a ready step with initial_tasks 0 stays created (left to cascade_complete_taskless_steps)'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_zero' and step_slug = 'mapper'),
  0,
  'no task is created for it'
);

-- TEST: a step with initial_tasks NULL is not started either
select pgflow.start_ready_steps(:'run_null');
select is(
  (select status from pgflow.step_states where run_id = :'run_null' and step_slug = 'mapper'),
  'created',
  'a ready map whose task count is unknown (NULL) stays created'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_null' and step_slug = 'mapper'),
  0,
  'no task is created for it'
);

select * from finish();
rollback;
