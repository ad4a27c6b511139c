begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.create_flow('flow_b');
select pgflow.add_step('flow_b', 'elsewhere');

-- TEST: a step of another flow is not a valid dependency
select throws_ok($$ select pgflow.add_step('flow_a', 'second', array['elsewhere']) $$, '23503', null,
  'depending on a step of another flow raises a foreign key violation');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 2, "steps": 1, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 2}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;
