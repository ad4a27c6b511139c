begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: root -> a, root -> b (two leaves), run through the real API
select pgflow.create_flow('fan_out');
select pgflow.add_step('fan_out', 'root');
select pgflow.add_step('fan_out', 'a', array['root']);
select pgflow.add_step('fan_out', 'b', array['root']);
select run_id from pgflow.start_flow('fan_out', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'root', 0, '"r"'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'b', 0, '{"b": 2}'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'a', 0, '[1]'::jsonb);

-- TEST: only leaf steps appear in the output
select is(
  (select output from pgflow.runs where run_id = :'run_id'),
  '{"a": [1], "b": {"b": 2}}'::jsonb,
  'the run output has a key per leaf step and none for the inner step'
);

select * from finish();
rollback;
