begin;
select plan(5);

-- SETUP: a run started 30 days ago that is still running (one task started, one queued).
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('two_roots');
select run_id as run_id from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('two_roots', 1, 1);
update pgflow.step_tasks set queued_at = queued_at - interval '30 days', started_at = started_at - interval '30 days'
where run_id = :'run_id';
update pgflow.step_states set created_at = created_at - interval '30 days', started_at = started_at - interval '30 days'
where run_id = :'run_id';
update pgflow.runs set started_at = started_at - interval '30 days' where run_id = :'run_id';

-- TEST: nothing of the running run is touched
select lives_ok($$select pgflow.prune_data_older_than(interval '1 day')$$, 'prune runs');
select is(count(*)::int, 1, 'running run kept') from pgflow.runs where run_id = :'run_id';
select is(count(*)::int, 3, 'its step_states kept') from pgflow.step_states where run_id = :'run_id';
select is(count(*)::int, 2, 'its step_tasks kept') from pgflow.step_tasks where run_id = :'run_id';
select is(pgflow_tests.queue_count('two_roots', 'q'), 2::bigint, 'its queue messages kept');

select * from finish();
rollback;
