begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: two map_chain runs with the producer started
select pgflow_tests.setup_flow('map_chain');
select run_id as bad from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select run_id as good from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('map_chain', 30, 10);

-- TEST: in one call, an object output feeding a map fails its run as complete_task does;
-- the other run's array output proceeds
select results_eq(
  format($$select run_id, status from pgflow.complete_tasks(array[%L, %L]::uuid[],
      array['producer', 'producer'], array[0, 0], array['{"a": 1}', '[1, 2]']::jsonb[])$$, :'bad', :'good'),
  format($$values (%L::uuid, 'failed'::text), (%L::uuid, 'completed'::text)$$, :'bad', :'good'),
  'the violating task fails, the other completes'
);
select is((select error_message from pgflow.step_tasks where run_id = :'bad'),
  '[TYPE_VIOLATION] Produced object instead of array', 'with the TYPE_VIOLATION error');
select is((select status from pgflow.runs where run_id = :'bad'), 'failed', 'its run fails');
select is((select status from pgflow.runs where run_id = :'good'), 'started', 'the other run goes on');
select results_eq(
  format($$select status, initial_tasks from pgflow.step_states where run_id = %L and step_slug = 'mapper'$$, :'good'),
  $$values ('started'::text, 2)$$,
  'its map starts with two tasks'
);

select * from finish();
rollback;
