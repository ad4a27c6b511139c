begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');


-- TEST: max_attempts must be >= 0
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', max_attempts => -1) $$, '23514', null,
  'max_attempts -1 raises a check violation');
select throws_like($$ select pgflow.add_step('flow_a', 'bad', max_attempts => -1) $$, '%max_attempts%',
  'the error names the max_attempts option');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;
