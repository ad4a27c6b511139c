begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('root_map');

-- TEST: NULL input for a flow with a root map is rejected
select throws_like(
  $$select * from pgflow.start_flow('root_map', null)$$,
  '%input is NULL%',
  'start_flow raises when a flow with a root map gets a NULL input'
);

-- TEST: nothing was written
select is((select count(*)::int from pgflow.runs), 0, 'no run is created');
select is((select count(*)::int from pgflow.step_states), 0, 'no step_state is created');
select is((select count(*)::int from pgflow.step_tasks), 0, 'no task is created');
select is(pgflow_tests.queue_count('root_map'), 0::bigint, 'no message is sent');

select * from finish();
rollback;
