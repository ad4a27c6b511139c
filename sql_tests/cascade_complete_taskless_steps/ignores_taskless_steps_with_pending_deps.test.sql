begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map); mapper has 0 tasks but still waits for producer
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
update pgflow.step_states set initial_tasks = 0
where run_id = :'run_id' and step_slug = 'mapper';

-- TEST: it is not completed while remaining_deps > 0
select is(pgflow.cascade_complete_taskless_steps(:'run_id'), 0, 'nothing is completed');
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'mapper'),
  'created',
  'a taskless step with remaining_deps > 0 stays created'
);

select * from finish();
rollback;
