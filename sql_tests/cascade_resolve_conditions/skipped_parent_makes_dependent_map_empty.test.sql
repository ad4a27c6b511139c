begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: list (requires {"go": true}) -> each (map over list) -> total
select pgflow.create_flow('skip_map');
select pgflow.add_step('skip_map', 'list', required_input_pattern => '{"go": true}');
select pgflow.add_step('skip_map', 'each', array['list'], step_type => 'map');
select pgflow.add_step('skip_map', 'total', array['each']);
select run_id from pgflow.start_flow('skip_map', '{"go": false}'::jsonb) \gset

-- TEST: the dependent map of a skipped parent completes immediately with []
select results_eq(
  format($$select status, initial_tasks, output from pgflow.step_states
           where run_id = %L and step_slug = 'each'$$, :'run_id'),
  $$values ('completed'::text, 0, '[]'::jsonb)$$,
  'the map whose only parent was skipped completes with initial_tasks 0 and output []'
);
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'total'),
  'started',
  'the step after the map is started'
);
select is(
  (select input from pgflow_tests.start_task(:'run_id', 'total')),
  '{"each": []}'::jsonb,
  'it receives the empty map output'
);

select * from finish();
rollback;
