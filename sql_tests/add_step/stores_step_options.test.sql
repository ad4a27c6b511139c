begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');

-- TEST: every option can be given by name
select lives_ok($$
  select pgflow.add_step(
    flow_slug => 'flow_a', step_slug => 'opts', deps_slugs => '{}',
    max_attempts => 4, base_delay => 6, timeout => 8, start_delay => 10)
$$, 'add_step accepts its documented named option arguments');
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout, opt_start_delay
     from pgflow.steps where flow_slug = 'flow_a' and step_slug = 'opts' $$,
  $$ values (4, 6, 8, 10) $$,
  'the options are stored in opt_max_attempts, opt_base_delay, opt_timeout, opt_start_delay');

select * from finish();
rollback;
