begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('opt_flow', max_attempts => 3);
select pgflow.add_step('opt_flow', 'first', timeout => 10);

-- TEST: options are not compared, so other options are verified and not applied
select is(
  pgflow.ensure_flow_compiled('opt_flow',
    pgflow_tests.shape(pgflow_tests.shape_step('first', options => '{"timeout": 99}'))
      || '{"options": {"maxAttempts": 8}}'),
  '{"status": "verified", "differences": []}'::jsonb,
  'a shape differing only in options is verified');
select results_eq(
  $$ select f.opt_max_attempts, s.opt_timeout from pgflow.flows as f
     join pgflow.steps as s using (flow_slug) where f.flow_slug = 'opt_flow' $$,
  $$ values (3, 10) $$,
  'the stored options are left unchanged');

select * from finish();
rollback;
