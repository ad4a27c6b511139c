begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map) -> reducer; producer returned an array
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{"x": 1}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '["a", {"b": 2}, 3]'::jsonb);

-- TEST: mapper tasks get the producer's elements, raw
select results_eq(
  $$select step_slug, task_index, input, flow_input
    from pgflow_tests.read_and_start('map_chain', 1, 10) order by task_index$$,
  $$values ('mapper'::text, 0, '"a"'::jsonb, null::jsonb),
           ('mapper', 1, '{"b": 2}', null),
           ('mapper', 2, '3', null)$$,
  'each dependent map task receives the parent output element at its index; flow_input NULL'
);
select is(
  (select initial_tasks from pgflow.step_states where run_id = :'run_id' and step_slug = 'mapper'),
  3,
  'the dependent map got one task per element'
);

select * from finish();
rollback;
