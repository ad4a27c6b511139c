begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: first -> gated (requires {"first": {"ok": true}}); gated made ready by hand
-- while "first" has no output, so its condition would be unmet
select pgflow.create_flow('gated_flow');
select pgflow.add_step('gated_flow', 'first');
select pgflow.add_step('gated_flow', 'gated', array['first'],
  required_input_pattern => '{"first": {"ok": true}}');
select run_id from pgflow.start_flow('gated_flow', '{}'::jsonb) \gset
update pgflow.step_states set remaining_deps = 0
where run_id = :'run_id' and step_slug = 'gated';

-- TEST: start_ready_steps starts it anyway: conditions are the caller's job
select pgflow.start_ready_steps(:'run_id');
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gated'),
  'started',
  'start_ready_steps starts a ready step without evaluating its condition'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'gated'),
  1,
  'a task is created for it'
);

select * from finish();
rollback;
