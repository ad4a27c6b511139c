begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> reducer; after mapper completed, its stored step output
-- is overwritten so that it differs from the task outputs
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '[1, 2]'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 0, '"a"'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 1, '"b"'::jsonb);
update pgflow.step_states set output = '["stored"]'
where run_id = :'run_id' and step_slug = 'mapper';
update pgflow.step_states set output = '["x", "y"]'
where run_id = :'run_id' and step_slug = 'producer';

-- TEST: inputs come from step_states.output, not recomputed from tasks
select is(
  (select input from pgflow_tests.start_task(:'run_id', 'reducer')),
  '{"mapper": ["stored"]}'::jsonb,
  'a dependent single step reads the stored step output'
);
select is(
  (select step_states.output from pgflow.step_states
   where run_id = :'run_id' and step_slug = 'mapper'),
  '["stored"]'::jsonb,
  'the stored output was not rewritten by start_tasks'
);

select * from finish();
rollback;
