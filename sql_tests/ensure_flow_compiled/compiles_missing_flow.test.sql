begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: an unknown flow is created from the shape
select is(
  pgflow.ensure_flow_compiled('new_flow', pgflow_tests.shape(
    pgflow_tests.shape_step('first'), pgflow_tests.shape_step('second', dependencies => array['first']))
    || '{"options": {"maxAttempts": 2}}'),
  '{"status": "compiled", "differences": []}'::jsonb,
  'the result is {"status": "compiled", "differences": []}');
select results_eq(
  $$ select step_slug, step_index from pgflow.steps where flow_slug = 'new_flow' order by step_index $$,
  $$ values ('first'::text, 0), ('second', 1) $$,
  'the steps of the shape are created');
select is((select opt_max_attempts from pgflow.flows where flow_slug = 'new_flow'), 2,
  'the shape options are applied');
select ok(pgflow_tests.queue_exists('new_flow'), 'the flow queue is created');

select * from finish();
rollback;
