begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: root_a, root_b -> last
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{"x": 1}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'root_a', 0, '{"a": 1}'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'root_b', 0, '[1, 2]'::jsonb);

-- TEST: the input is an object keyed by dependency slug; no flow_input
select results_eq(
  format($$select step_slug, input, flow_input from pgflow_tests.start_task(%L, 'last')$$, :'run_id'),
  $$values ('last'::text, '{"root_a": {"a": 1}, "root_b": [1, 2]}'::jsonb, null::jsonb)$$,
  'a dependent single step receives {dep_slug: dep_output} and flow_input NULL'
);
select is(
  (select attempts_count from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'last'),
  1,
  'the task is started'
);

select * from finish();
rollback;
