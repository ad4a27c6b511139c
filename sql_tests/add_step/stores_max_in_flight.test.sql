begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('throttled');

-- TEST: max_in_flight is stored for single and map steps; left out it is NULL (no limit)
select results_eq(
  $$ select step_slug, opt_max_in_flight from pgflow.add_step(flow_slug => 'throttled', step_slug => 'fetch', max_in_flight => 5) $$,
  $$ values ('fetch'::text, 5) $$,
  'add_step returns the row with max_in_flight');
select pgflow.add_step('throttled', 'each', array['fetch'], step_type => 'map', max_in_flight => 1);
select pgflow.add_step('throttled', 'done', array['each']);
select pgflow.add_step('throttled', 'positional', '{}', 2, 1, 10, 0, 'single', null, null, 'skip', 'fail');
select results_eq(
  $$ select step_slug, step_type, opt_max_in_flight from pgflow.steps where flow_slug = 'throttled' order by step_index $$,
  $$ values ('fetch'::text, 'single'::text, 5), ('each', 'map', 1), ('done', 'single', null::int),
            ('positional', 'single', null) $$,
  'each step stores its max_in_flight, NULL when not given (upstream''s positional call included)');

-- TEST: a re-add with the same dependencies is a no-op, whatever max_in_flight it gives
select results_eq(
  $$ select opt_max_in_flight from pgflow.add_step('throttled', 'fetch', max_in_flight => 9) $$,
  $$ values (5) $$,
  'the existing row is returned as it was');
select results_eq(
  $$ select step_slug, opt_max_in_flight from pgflow.add_step('throttled', 'done', array['each'], max_in_flight => 3) $$,
  $$ values ('done'::text, null::int) $$,
  'a re-add does not set max_in_flight on a step without one');

select * from finish();
rollback;
