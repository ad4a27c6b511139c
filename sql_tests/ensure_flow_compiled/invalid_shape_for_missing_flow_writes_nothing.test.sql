begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: a shape that add_step rejects leaves no half-compiled flow behind
select throws_ok(
  $$ select pgflow.ensure_flow_compiled('broken', pgflow_tests.shape(
       pgflow_tests.shape_step('a', dependencies => array['a']))) $$,
  '23514', null,
  'a self dependency in the shape raises a check violation');
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow, step or queue was created');

select * from finish();
rollback;
