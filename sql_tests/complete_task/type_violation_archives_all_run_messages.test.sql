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

-- TEST: other tasks keep their status
select results_eq(
  format($$select step_slug, status from pgflow.step_tasks
           where run_id = %L and step_slug in ('busy', 'waiting') order by step_slug$$, :'run_id'),
  $$values ('busy'::text, 'started'::text), ('waiting', 'queued')$$,
  'other tasks keep their status (only their messages are archived)'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the run is failed');

select * from finish();
rollback;
