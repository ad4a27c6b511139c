begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: map_chain producer -> mapper (map) -> reducer; producer's task claimed (stuck)
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'producer');
create temp table snapshot as
select (select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s) as steps,
       (select jsonb_agg(to_jsonb(t) order by t.step_slug, t.task_index) from pgflow.step_tasks as t) as tasks,
       (select count(*) from pgflow.run_events) as events;

-- TEST: a single step that feeds a map needs an array
select throws_ok(
  format($$select * from pgflow.complete_step(%L, 'producer', '{"a": 1}'::jsonb, 'alice', null)$$, :'run_id'),
  '22023',
  'complete_step: the output of step ''producer'' must be a JSON array (got object)',
  'an object for a step feeding a map raises 22023'
);
select throws_ok(
  format($$select * from pgflow.complete_step(%L, 'producer', null, 'alice', null)$$, :'run_id'),
  '22023',
  'complete_step: the output of step ''producer'' must be a JSON array (got NULL)',
  'NULL for a step feeding a map raises 22023'
);
select throws_ok(
  format($$select * from pgflow.complete_step(%L, 'producer', 'null'::jsonb, 'alice', null)$$, :'run_id'),
  '22023',
  'complete_step: the output of step ''producer'' must be a JSON array (got null)',
  'JSON null for a step feeding a map raises 22023'
);

-- TEST: nothing was written
select is((select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s), (select steps from snapshot),
  'the step states are unchanged');
select is((select jsonb_agg(to_jsonb(t) order by t.step_slug, t.task_index) from pgflow.step_tasks as t),
  (select tasks from snapshot), 'the tasks are unchanged (producer''s task still started)');
select is((select count(*) from pgflow.run_events), (select events from snapshot), 'no run_events row was written');

-- TEST: an array is accepted and sizes the map
select * from pgflow.complete_step(:'run_id', 'producer', '[10, 20]'::jsonb, 'alice', null);
select results_eq(
  format($$select status, initial_tasks from pgflow.step_states where run_id = %L and step_slug = 'mapper'$$, :'run_id'),
  $$values ('started'::text, 2)$$,
  'with an array of 2 the map starts with 2 tasks'
);

-- TEST: a map step needs an array too
select pgflow_tests.start_and_complete_task(:'run_id', 'mapper', 0, '"one"'::jsonb);
select throws_ok(
  format($$select * from pgflow.complete_step(%L, 'mapper', '"all"'::jsonb, 'alice', null)$$, :'run_id'),
  '22023',
  'complete_step: the output of step ''mapper'' must be a JSON array (got string)',
  'a string for a map step raises 22023'
);
select * from pgflow.complete_step(:'run_id', 'mapper', '["one", "two"]'::jsonb, 'alice', null);
select results_eq(
  $$select step_slug, input from pgflow_tests.read_and_start('map_chain')$$,
  $$values ('reducer'::text, '{"mapper": ["one", "two"]}'::jsonb)$$,
  'an array completes the map step; the reducer gets it'
);

select * from finish();
rollback;
