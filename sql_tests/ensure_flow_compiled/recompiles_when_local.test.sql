begin;
select plan(2);

-- SETUP: local Supabase CLI secret, no allow_data_loss
select pgflow_tests.reset_db();
select pgflow.create_flow('dev_flow');
select pgflow.add_step('dev_flow', 'a');
select set_config('app.settings.jwt_secret', 'super-secret-jwt-token-with-at-least-32-characters-long', true);

-- TEST: in local development a mismatch is recompiled without asking
select is(
  pgflow.ensure_flow_compiled('dev_flow', pgflow_tests.shape(pgflow_tests.shape_step('a', 'map'))),
  jsonb_build_object('status', 'recompiled', 'differences',
    jsonb_build_array('Step at index 0: type differs ''map'' vs ''single''')),
  'is_local() makes a mismatch recompile');
select is((select step_type from pgflow.steps where flow_slug = 'dev_flow'), 'map',
  'the step was recreated as a map');

select * from finish();
rollback;
