begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'first');
select pgflow.add_step('flow_a', 'second');

-- TEST: a map step can have at most one dependency; the message lists the given ones
select throws_matching(
  $$ select pgflow.add_step('flow_a', 'mapper', array['first', 'second'], step_type => 'map') $$,
  'at most one dependency.*first.*second',
  'a map step with two dependencies raises, naming the limit and the dependencies');
select throws_matching(
  $$ select pgflow.add_step('flow_a', 'mapper', array['second', 'first'], step_type => 'map') $$,
  'at most one dependency.*second.*first',
  'the dependencies are listed as given');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 2, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;
