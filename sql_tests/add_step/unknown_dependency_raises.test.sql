begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'first');

-- TEST: every dependency must be an existing step of the same flow
select throws_ok($$ select pgflow.add_step('flow_a', 'second', array['missing']) $$, '23503', null,
  'an unknown dependency raises a foreign key violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'second', array['first', 'missing']) $$, '23503', null,
  'one unknown dependency among known ones raises a foreign key violation');
select throws_like($$ select pgflow.add_step('flow_a', 'second', array['first', 'missing']) $$, '%missing%',
  'the error names the unknown dependency');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 1, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;
