begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('root_map');

-- TEST: non-array inputs are rejected with their JSON type in the message
select throws_like(
  $$select * from pgflow.start_flow('root_map', '{"items": [1, 2]}'::jsonb)$$,
  '%root map steps but input is not an array (got object)%',
  'an object input is rejected and the message names the type (object)'
);
select throws_like(
  $$select * from pgflow.start_flow('root_map', '"abc"'::jsonb)$$,
  '%input is not an array (got string)%',
  'a string input is rejected and the message names the type (string)'
);
select throws_like(
  $$select * from pgflow.start_flow('root_map', '42'::jsonb)$$,
  '%input is not an array (got number)%',
  'a number input is rejected and the message names the type (number)'
);
select throws_like(
  $$select * from pgflow.start_flow('root_map', 'null'::jsonb)$$,
  '%input is not an array (got null)%',
  'a JSON null input is rejected and the message names the type (null)'
);

-- TEST: nothing was written
select is((select count(*)::int from pgflow.runs), 0, 'no run is created');
select is((select count(*)::int from pgflow.step_states), 0, 'no step_state is created');
select is(pgflow_tests.queue_count('root_map'), 0::bigint, 'no message is sent');

select * from finish();
rollback;
