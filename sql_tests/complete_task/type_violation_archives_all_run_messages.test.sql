begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map); two more roots: "waiting" (queued) and "busy" (started)
select pgflow.create_flow('tv_archive');
select pgflow.add_step('tv_archive', 'producer');
select pgflow.add_step('tv_archive', 'waiting');
select pgflow.add_step('tv_archive', 'busy');
select pgflow.add_step('tv_archive', 'mapper', array['producer'], step_type => 'map');
select run_id from pgflow.start_flow('tv_archive', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'busy');
select pgflow_tests.start_and_complete_task(:'run_id', 'producer', 0, '{"not": "array"}'::jsonb);

-- TEST: every message of the run is archived
select is(pgflow_tests.queue_count('tv_archive'), 0::bigint, 'no message of the failed run is left in the queue');
select is(pgflow_tests.queue_count('tv_archive', 'a'), 3::bigint, 'all three messages are archived');

-- TEST: the violating task stays failed; the run's other unfinished tasks are cancelled
select results_eq(
  format($$select step_slug, status, cancelled_at is not distinct from now() from pgflow.step_tasks
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('busy'::text, 'cancelled'::text, true), ('producer', 'failed', false), ('waiting', 'cancelled', true)$$,
  'the producer task stays failed; the started and the queued task are cancelled (cancelled_at now)'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the run is failed');

select * from finish();
rollback;
