begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: root -> a, root -> b (if root.go, else skipped)
select pgflow.create_flow('half', max_attempts => 1);
select pgflow.add_step('half', 'root');
select pgflow.add_step('half', 'a', array['root']);
select pgflow.add_step('half', 'b', array['root'], required_input_pattern => '{"root": {"go": true}}');
select run_id from pgflow.start_flow('half', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'root', 0, '{"go": false}');
select pgflow_tests.start_and_complete_task(:'run_id', 'a', 0, '"done"');

-- TEST: the skipped leaf has no key (not even null)
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'b'),
  'skipped',
  'precondition: leaf b is skipped'
);
select is((select o.output from pgflow._run_outputs(array[:'run_id']::uuid[]) as o), '{"a": "done"}'::jsonb, 'only the completed leaf is in the output');
select ok(not (select o.output from pgflow._run_outputs(array[:'run_id']::uuid[]) as o) ? 'b', 'the skipped leaf is absent');

select * from finish();
rollback;
