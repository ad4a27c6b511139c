begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: root map over mixed elements
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[{"id": 1}, "two", 3, [4], null]'::jsonb) \gset

-- TEST: each task gets its own element, unwrapped, and no flow_input
select results_eq(
  $$select task_index, input, flow_input from pgflow_tests.read_and_start('root_map', 1, 10)
    order by task_index$$,
  $$values (0, '{"id": 1}'::jsonb, null::jsonb),
           (1, '"two"', null),
           (2, '3', null),
           (3, '[4]', null),
           (4, 'null', null)$$,
  'each root map task receives the raw element at its index and flow_input NULL'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and status = 'started'),
  5,
  'all five tasks are started'
);

select * from finish();
rollback;
