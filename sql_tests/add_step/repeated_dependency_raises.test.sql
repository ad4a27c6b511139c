begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'a');

-- TEST: listing a dependency twice would make deps_count (2) disagree with the edges (1)
select throws_ok($$ select pgflow.add_step('flow_a', 'b', array['a', 'a']) $$, null::char(5), null,
  'a dependency listed twice raises (pgflow-py; upstream stores deps_count 2 with one edge)');
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 1, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;
