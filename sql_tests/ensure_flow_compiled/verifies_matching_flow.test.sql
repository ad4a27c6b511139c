begin;
select plan(4);

-- SETUP: a stored flow with a run in progress
select pgflow_tests.reset_db();
select pgflow.create_flow('stable_flow');
select pgflow.add_step('stable_flow', 'first');
select pgflow.add_step('stable_flow', 'second', array['first']);
select pgflow.start_flow('stable_flow', '{}');

-- TEST: the same shape is verified and nothing changes
select is(
  pgflow.ensure_flow_compiled('stable_flow', pgflow_tests.shape(
    pgflow_tests.shape_step('first'), pgflow_tests.shape_step('second', dependencies => array['first'])),
    allow_data_loss => true),
  '{"status": "verified", "differences": []}'::jsonb,
  'a matching shape gives {"status": "verified", "differences": []}, even with allow_data_loss');
select is((select count(*)::int from pgflow.runs where flow_slug = 'stable_flow'), 1, 'the run is kept');
select is((select count(*)::int from pgflow.step_states where flow_slug = 'stable_flow'), 2, 'the step states are kept');
select is(pgflow_tests.queue_count('stable_flow'), 1::bigint, 'the queued task message is kept');

select * from finish();
rollback;
