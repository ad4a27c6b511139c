begin;
select plan(5);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');


-- TEST: step_type is single or map
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', step_type => 'loop') $$, '23514', null,
  'step_type loop raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', step_type => 'MAP') $$, '23514', null,
  'step_type MAP (wrong case) raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', step_type => '') $$, '23514', null,
  'an empty step_type raises a check violation');
select throws_like($$ select pgflow.add_step('flow_a', 'bad', step_type => 'loop') $$, '%loop%',
  'the error quotes the rejected step_type');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;
