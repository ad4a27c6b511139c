begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');


-- TEST: the flow must exist
select throws_ok($$ select pgflow.add_step('no_such_flow', 'first') $$, '23503', null,
  'add_step on an unknown flow raises a foreign key violation');
select throws_like($$ select pgflow.add_step('no_such_flow', 'first') $$, '%no_such_flow%',
  'the error names the unknown flow');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;
