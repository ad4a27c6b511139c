begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('limited', concurrency_limit => 1, on_limit => 'reject', run_timeout => 60);
select pgflow.add_step('limited', 'first', max_in_flight => 2);

-- TEST: limit options are options, not structure: other values are verified, not applied
select is(
  pgflow.ensure_flow_compiled('limited',
    pgflow_tests.shape(pgflow_tests.shape_step('first', options => '{"maxInFlight": 7}'))
      || '{"options": {"concurrencyLimit": 5, "onLimit": "queue"}}'),
  '{"status": "verified", "differences": []}'::jsonb,
  'a shape differing only in limit options is verified');
select results_eq(
  $$ select f.opt_concurrency_limit, f.opt_on_limit, f.opt_run_timeout, s.opt_max_in_flight
     from pgflow.flows as f join pgflow.steps as s using (flow_slug) where f.flow_slug = 'limited' $$,
  $$ values (1, 'reject'::text, 60, 2) $$,
  'the stored options are left unchanged');

select * from finish();
rollback;
