begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: root map -> dependent map -> dependent map, started over []
select pgflow.create_flow('map_chain3');
select pgflow.add_step('map_chain3', 'm1', step_type => 'map');
select pgflow.add_step('map_chain3', 'm2', array['m1'], step_type => 'map');
select pgflow.add_step('map_chain3', 'm3', array['m2'], step_type => 'map');
select run_id from pgflow.start_flow('map_chain3', '[]'::jsonb) \gset

-- TEST: every map of the chain completes with [] and zero tasks
select results_eq(
  format($$select step_slug, status, initial_tasks, remaining_tasks, remaining_deps, output
           from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('m1'::text, 'completed'::text, 0, 0, 0, '[]'::jsonb),
           ('m2', 'completed', 0, 0, 0, '[]'::jsonb),
           ('m3', 'completed', 0, 0, 0, '[]'::jsonb)$$,
  'empty arrays propagate: every map in the chain completes with output []'
);
select is((select count(*)::int from pgflow.step_tasks), 0, 'no task is created in the chain');

-- TEST: the run completes within start_flow; only the leaf is in the output
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"m3": []}'::jsonb)$$,
  'the run is completed with output {"m3": []}'
);
select is(pgflow_tests.queue_count('map_chain3'), 0::bigint, 'no message is sent');

select * from finish();
rollback;
