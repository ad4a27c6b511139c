begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: an unrelated flow exists
select pgflow_tests.setup_flow('sequential');

-- TEST: starting an unknown flow fails with a foreign key violation
select throws_ok(
  $$select * from pgflow.start_flow('no_such_flow', '{}'::jsonb)$$,
  '23503',
  null,
  'start_flow of an unknown flow raises a foreign key violation'
);

-- TEST: nothing was written
select is((select count(*)::int from pgflow.runs), 0, 'no run is created');
select is((select count(*)::int from pgflow.step_states), 0, 'no step_state is created');

select * from finish();
rollback;
