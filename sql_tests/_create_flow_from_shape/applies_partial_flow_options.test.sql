begin;
select plan(1);

-- SETUP: only timeout is given
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('from_shape', '{"steps": [], "options": {"timeout": 7}}');

-- TEST
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout from pgflow.flows where flow_slug = 'from_shape' $$,
  $$ values (3, 5, 7) $$,
  'missing option keys fall back to the defaults');

select * from finish();
rollback;
