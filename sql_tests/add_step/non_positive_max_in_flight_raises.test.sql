begin;
select plan(5);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('throttled');
select pgflow.add_step('throttled', 'fetch', max_in_flight => 2);
create temp table before_steps as select * from pgflow.steps;

-- TEST: max_in_flight must be >= 1
select throws_ok($$ select pgflow.add_step('throttled', 'new_step', max_in_flight => 0) $$, '23514',
  'Option max_in_flight must be >= 1 (got 0)', 'max_in_flight 0 raises a check violation');
select throws_ok($$ select pgflow.add_step('throttled', 'new_step', step_type => 'map', max_in_flight => -1) $$, '23514',
  'Option max_in_flight must be >= 1 (got -1)', 'a negative max_in_flight raises for a map step');

-- TEST: it raises for an existing step too (bad input always raises)
select throws_ok($$ select pgflow.add_step('throttled', 'fetch', max_in_flight => 0) $$, '23514',
  'Option max_in_flight must be >= 1 (got 0)', 'max_in_flight 0 raises on a re-add');

-- TEST: nothing was written
select is((select count(*)::int from pgflow.steps), 1, 'no step was added');
select ok(
  (select count(*) = 0 from (select * from pgflow.steps except select * from before_steps) as d),
  'the existing step is unchanged');

select * from finish();
rollback;
