begin;
select plan(3);

-- SETUP: two runs of a root map; the first completes and is aged, the second still runs
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('root_map');
select run_id as old_run from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset
select pgflow_tests.poll_and_complete('root_map', '"done"'::jsonb);
select pgflow_tests.poll_and_complete('root_map', '"done"'::jsonb);
select run_id as live_run from pgflow.start_flow('root_map', '[3, 4, 5]'::jsonb) \gset
update pgflow.runs set started_at = now() - interval '10 days', completed_at = now() - interval '9 days'
where run_id = :'old_run';
select is((select status from pgflow.runs where run_id = :'old_run'), 'completed', 'precondition: the old run completed');

-- TEST: the old run's elements go with it, the running run keeps its own
select pgflow.prune_data_older_than(interval '7 days');
select is((select count(*)::int from pgflow.map_task_inputs where run_id = :'old_run'), 0,
          'the elements of the pruned run are deleted');
select is((select inputs from pgflow.map_task_inputs where run_id = :'live_run'), '[3, 4, 5]'::jsonb,
          'the elements of the running run are kept');

select * from finish();
rollback;
