begin;
select plan(3);

-- SETUP: only timeout given, the others explicitly NULL
select pgflow_tests.reset_db();
select pgflow.create_flow('partial_flow', max_attempts => null, base_delay => null, timeout => 10);

-- TEST: given option kept, NULL ones defaulted
select is((select opt_max_attempts from pgflow.flows where flow_slug = 'partial_flow'), 3,
  'NULL max_attempts becomes 3');
select is((select opt_base_delay from pgflow.flows where flow_slug = 'partial_flow'), 5,
  'NULL base_delay becomes 5');
select is((select opt_timeout from pgflow.flows where flow_slug = 'partial_flow'), 10,
  'the given timeout is kept');

select * from finish();
rollback;
