begin;
select plan(5);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');


-- TEST: when_exhausted is fail, skip or skip-cascade
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', when_exhausted => 'retry') $$, '23514', null,
  'when_exhausted retry raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', when_exhausted => 'Skip') $$, '23514', null,
  'when_exhausted Skip (wrong case) raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', when_exhausted => null) $$, null::char(5), null,
  'when_exhausted NULL raises');
select throws_like($$ select pgflow.add_step('flow_a', 'bad', when_exhausted => 'retry') $$, '%when_exhausted%',
  'the error names when_exhausted');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;
