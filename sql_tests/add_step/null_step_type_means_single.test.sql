begin;
select plan(1);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'untyped', step_type => null);

-- TEST
select is((select step_type from pgflow.steps where step_slug = 'untyped'), 'single',
  'step_type NULL is stored as single');

select * from finish();
rollback;
