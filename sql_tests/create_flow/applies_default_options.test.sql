begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('defaults_flow');

-- TEST: NULL options become 3 / 5 / 60
select is((select opt_max_attempts from pgflow.flows where flow_slug = 'defaults_flow'), 3,
  'max_attempts defaults to 3');
select is((select opt_base_delay from pgflow.flows where flow_slug = 'defaults_flow'), 5,
  'base_delay defaults to 5 (not the table default 1)');
select is((select opt_timeout from pgflow.flows where flow_slug = 'defaults_flow'), 60,
  'timeout defaults to 60');

select * from finish();
rollback;
