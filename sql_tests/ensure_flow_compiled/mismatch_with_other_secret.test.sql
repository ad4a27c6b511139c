begin;
select plan(2);

-- SETUP: a non-local secret
select pgflow_tests.reset_db();
select pgflow.create_flow('prod_flow');
select pgflow.add_step('prod_flow', 'a');
select set_config('app.settings.jwt_secret', 'some-production-secret-that-is-long-enough', true);

-- TEST
select is(
  pgflow.ensure_flow_compiled('prod_flow', pgflow_tests.shape(pgflow_tests.shape_step('a', 'map')),
    allow_data_loss => false),
  jsonb_build_object('status', 'mismatch', 'differences',
    jsonb_build_array('Step at index 0: type differs ''map'' vs ''single''')),
  'outside local development a mismatch is reported, not fixed');
select is((select step_type from pgflow.steps where flow_slug = 'prod_flow'), 'single',
  'the step is unchanged');

select * from finish();
rollback;
