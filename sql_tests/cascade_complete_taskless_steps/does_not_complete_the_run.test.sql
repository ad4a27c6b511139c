begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map, leaf). Pretend producer completed with [].
select pgflow.create_flow('two_step');
select pgflow.add_step('two_step', 'producer');
select pgflow.add_step('two_step', 'mapper', array['producer'], step_type => 'map');
select run_id from pgflow.start_flow('two_step', '{}'::jsonb) \gset
update pgflow.step_states
set status = 'completed', remaining_tasks = 0, completed_at = now(), output = '[]'
where run_id = :'run_id' and step_slug = 'producer';
update pgflow.step_states set remaining_deps = 0, initial_tasks = 0
where run_id = :'run_id' and step_slug = 'mapper';
update pgflow.runs set remaining_steps = 1 where run_id = :'run_id';

-- TEST: the last step completes, but the run is not finalised here
select is(pgflow.cascade_complete_taskless_steps(:'run_id'), 1, 'the empty map is completed');
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  0,
  'remaining_steps reaches 0'
);
select is(
  (select status from pgflow.runs where run_id = :'run_id'),
  'started',
  'the run stays started (finalisation is maybe_complete_run''s job)'
);

select * from finish();
rollback;
