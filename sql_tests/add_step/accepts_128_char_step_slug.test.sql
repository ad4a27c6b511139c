begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');

-- TEST: step slugs have no queue, so the 47-character limit of flow slugs does not apply
select lives_ok(format($$ select pgflow.add_step('flow_a', %L) $$, repeat('s', 128)),
  'a 128-character step slug is accepted');
select is((select length(step_slug) from pgflow.steps where flow_slug = 'flow_a'), 128,
  'the long step slug is stored');

select * from finish();
rollback;
