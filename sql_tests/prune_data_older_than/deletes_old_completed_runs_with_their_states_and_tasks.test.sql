begin;
select plan(8);

-- SETUP: two completed runs of the sequential flow; one finished 10 days ago, the other
-- just now. Timestamps are backdated consistently (check constraints hold).
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select run_id as old_run from pgflow.start_flow('sequential', '{"age": "old"}'::jsonb) \gset
select pgflow_tests.poll_and_complete('sequential');
select pgflow_tests.poll_and_complete('sequential');
select pgflow_tests.poll_and_complete('sequential');
select run_id as new_run from pgflow.start_flow('sequential', '{"age": "new"}'::jsonb) \gset
select pgflow_tests.poll_and_complete('sequential');
select pgflow_tests.poll_and_complete('sequential');
select pgflow_tests.poll_and_complete('sequential');
select is(count(*)::int, 2, 'precondition: both runs completed') from pgflow.runs where status = 'completed';
update pgflow.step_tasks set queued_at = queued_at - interval '10 days', started_at = started_at - interval '10 days',
  completed_at = completed_at - interval '10 days' where run_id = :'old_run';
update pgflow.step_states set created_at = created_at - interval '10 days', started_at = started_at - interval '10 days',
  completed_at = completed_at - interval '10 days' where run_id = :'old_run';
update pgflow.runs set started_at = started_at - interval '10 days', completed_at = completed_at - interval '10 days'
where run_id = :'old_run';

-- TEST: pruning with a 7-day retention removes the old run and everything that belongs to it
select lives_ok($$select pgflow.prune_data_older_than(interval '7 days')$$, 'prune runs');
select is(count(*)::int, 0, 'old run deleted') from pgflow.runs where run_id = :'old_run';
select is(count(*)::int, 0, 'old step_states deleted') from pgflow.step_states where run_id = :'old_run';
select is(count(*)::int, 0, 'old step_tasks deleted') from pgflow.step_tasks where run_id = :'old_run';

-- TEST: the recent run is kept in full
select is(count(*)::int, 1, 'recent run kept') from pgflow.runs where run_id = :'new_run';
select is(count(*)::int, 3, 'recent step_states kept') from pgflow.step_states where run_id = :'new_run';
select is(count(*)::int, 3, 'recent step_tasks kept') from pgflow.step_tasks where run_id = :'new_run';

select * from finish();
rollback;
