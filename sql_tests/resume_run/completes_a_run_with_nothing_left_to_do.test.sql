begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map): producer started, the run paused, then producer returns
-- [] (mapper is ready with no task, and not completed while paused)
select pgflow.create_flow('empty_map', max_attempts => 1);
select pgflow.add_step('empty_map', 'producer');
select pgflow.add_step('empty_map', 'mapper', array['producer'], step_type => 'map');
select run_id as run from pgflow.start_flow('empty_map', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'producer');
select count(*) from pgflow.pause_run(:'run', 'alice', null);
select count(*) from pgflow.complete_task(:'run', 'producer', 0, '[]'::jsonb);

-- TEST: while paused, the empty map waits
select results_eq(
  format($$select r.status, ss.status from pgflow.runs as r join pgflow.step_states as ss using (run_id)
           where r.run_id = %L and ss.step_slug = 'mapper'$$, :'run'),
  $$values ('paused'::text, 'created'::text)$$,
  'the run is paused and mapper created'
);

-- TEST: resume_run completes the empty map and with it the run, and says so
select results_eq(
  format($$select * from pgflow.resume_run(%L, 'carol', null)$$, :'run'),
  format($$values (%L::uuid, 'completed'::text, true, null::text)$$, :'run'),
  'resume_run returns (run_id, completed, true, NULL)'
);
select results_eq(
  format($$select status, paused_at, output from pgflow.runs where run_id = %L$$, :'run'),
  $$values ('completed'::text, null::timestamptz, '{"mapper": []}'::jsonb)$$,
  'the run is completed with the empty map''s output'
);
select results_eq(
  format($$select event, step_slug from pgflow.run_events where run_id = %L and actor = 'carol' order by id$$, :'run'),
  $$values ('run:resumed'::text, null::text), ('step:completed', 'mapper'), ('run:completed', null)$$,
  'events run:resumed, step:completed of mapper, run:completed, all by carol'
);

select * from finish();
rollback;
