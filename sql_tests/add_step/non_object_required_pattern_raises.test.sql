begin;
select plan(7);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');


-- TEST: required_input_pattern must be a JSON object
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', required_input_pattern => '[1, 2]') $$, '23514', null,
  'an array pattern raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', required_input_pattern => '"paid"') $$, '23514', null,
  'a string pattern raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', required_input_pattern => '42') $$, '23514', null,
  'a number pattern raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', required_input_pattern => 'true') $$, '23514', null,
  'a boolean pattern raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', required_input_pattern => 'null'::jsonb) $$, '23514', null,
  'a JSON null pattern (not SQL NULL) raises a check violation');
select throws_like($$ select pgflow.add_step('flow_a', 'bad', required_input_pattern => '[1, 2]') $$, '%required_input_pattern%',
  'the error names required_input_pattern');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;
