begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('again', max_attempts => 9);
select pgflow.add_step('again', 'old');
select pgflow.delete_flow_and_data('again');

-- TEST: the slug and queue name are free again
select lives_ok($$ select pgflow.create_flow('again') $$, 'the flow can be created again');
select is((select opt_max_attempts from pgflow.flows where flow_slug = 'again'), 3,
  'the new flow has fresh options');
select lives_ok($$ select pgflow.add_step('again', 'old', step_type => 'map') $$,
  'a step with a former slug can be defined differently');

select * from finish();
rollback;
