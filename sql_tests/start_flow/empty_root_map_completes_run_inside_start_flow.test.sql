begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: a flow made of a single root map, started over []
select pgflow_tests.setup_flow('root_map');
create temp table returned as select * from pgflow.start_flow('root_map', '[]'::jsonb);
select run_id from returned \gset

-- TEST: the map completes immediately with []
select results_eq(
  format($$select status, initial_tasks, remaining_tasks, output
           from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, 0, '[]'::jsonb)$$,
  'the empty root map is completed with initial_tasks 0, remaining_tasks 0 and output []'
);
select ok(
  (select started_at is not null and completed_at is not null
   from pgflow.step_states where run_id = :'run_id'),
  'the empty map gets started_at and completed_at'
);

-- TEST: no work was queued
select is((select count(*)::int from pgflow.step_tasks), 0, 'no task is created for an empty map');
select is(pgflow_tests.queue_count('root_map'), 0::bigint, 'no message is sent for an empty map');

-- TEST: the run completes inside start_flow and the returned row shows it
select is((select status from returned), 'completed', 'start_flow returns the run already completed');
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"items": []}'::jsonb)$$,
  'the stored run is completed with remaining_steps 0 and output {"items": []}'
);
select isnt(
  (select completed_at from pgflow.runs where run_id = :'run_id'),
  null,
  'the run has completed_at'
);

select * from finish();
rollback;
