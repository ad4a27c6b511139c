begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: gate (requires {"go": true}) -> follow (no condition)
select pgflow.create_flow('follow_flow');
select pgflow.add_step('follow_flow', 'gate', required_input_pattern => '{"go": true}');
select pgflow.add_step('follow_flow', 'follow', array['gate']);
select run_id from pgflow.start_flow('follow_flow', '{"go": false}'::jsonb) \gset

-- TEST: the child of a 'skip' parent still runs, with an input lacking the parent
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'follow'),
  'started',
  'a step without condition whose only dependency was skipped is started'
);
select is(
  (select input from pgflow_tests.start_task(:'run_id', 'follow')),
  '{}'::jsonb,
  'its input is {} (the skipped dependency is absent)'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'only follow remains'
);

select * from finish();
rollback;
