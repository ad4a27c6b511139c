begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: root_map (items maps over the run input) and map_chain (producer -> mapper (map)
-- -> reducer)
select pgflow_tests.setup_flow('root_map');
select pgflow_tests.setup_flow('map_chain');

-- TEST: a root map started with [] completes at once: run:started by app, then
-- step:completed of the map and run:completed, by the cascade (system)
select run_id as run from pgflow.start_flow('root_map', '[]'::jsonb) \gset
select results_eq(
  format($$select step_slug, event, actor from pgflow.run_events where run_id = %L order by id$$, :'run'),
  $$values (null::text, 'run:started'::text, 'app'::text), ('items', 'step:completed', 'system'),
           (null, 'run:completed', 'system')$$,
  'run:started (app), step:completed of items and run:completed (system); no step:started'
);

-- TEST: a producer returning [] leaves its dependent map with nothing to map: the
-- worker's report records producer completed, mapper completed (taskless), reducer started
select run_id as chain from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select max(id) as last_id from pgflow.run_events \gset
select count(*) from pgflow_tests.start_and_complete_task(:'chain', 'producer', 0, '[]'::jsonb);
select results_eq(
  format($$select step_slug, event, actor from pgflow.run_events where id > %s order by id$$, :last_id),
  $$values ('producer'::text, 'step:completed'::text, 'worker:11111111-1111-1111-1111-111111111111'::text),
           ('mapper', 'step:completed', 'worker:11111111-1111-1111-1111-111111111111'),
           ('reducer', 'step:started', 'worker:11111111-1111-1111-1111-111111111111')$$,
  'producer completed, mapper completed with no task, reducer started, each once, by the worker'
);

select * from finish();
rollback;
