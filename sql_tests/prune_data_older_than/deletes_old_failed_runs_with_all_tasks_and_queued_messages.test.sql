begin;
select plan(7);

-- SETUP: two_roots flow (root_a, root_b -> last). root_a fails for good (max_attempts 1),
-- which fails the run. The failure is backdated 10 days. Then, to cover a message left in
-- the queue, one message for the failed run is put back in the queue by hand.
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('two_roots');
select run_id as run_id from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('two_roots', 1, 1);
select pgflow.fail_task(:'run_id', step_slug, 0, 'boom')
from pgflow.step_tasks where run_id = :'run_id' and status = 'started';
select is(status, 'failed', 'precondition: the run failed') from pgflow.runs where run_id = :'run_id';
update pgflow.step_tasks set queued_at = queued_at - interval '10 days', started_at = started_at - interval '10 days',
  failed_at = failed_at - interval '10 days' where run_id = :'run_id';
update pgflow.step_states set created_at = created_at - interval '10 days', started_at = started_at - interval '10 days',
  failed_at = failed_at - interval '10 days' where run_id = :'run_id';
update pgflow.runs set started_at = started_at - interval '10 days', failed_at = failed_at - interval '10 days'
where run_id = :'run_id';
select pgmq.send('two_roots',
  jsonb_build_object('flow_slug', 'two_roots', 'run_id', :'run_id', 'step_slug', 'root_b', 'task_index', 0)) as stray_msg \gset
update pgflow.step_tasks set message_id = :'stray_msg' where run_id = :'run_id' and step_slug = 'root_b';

-- TEST: the failed run, all its step_states and step_tasks (any status) are deleted
select lives_ok($$select pgflow.prune_data_older_than(interval '7 days')$$, 'prune runs');
select is(count(*)::int, 0, 'failed run deleted') from pgflow.runs where run_id = :'run_id';
select is(count(*)::int, 0, 'its step_states deleted, whatever their status') from pgflow.step_states where run_id = :'run_id';
select is(count(*)::int, 0, 'its step_tasks deleted, whatever their status') from pgflow.step_tasks where run_id = :'run_id';

-- TEST: the message still in the queue for that run is deleted (not left behind, not archived)
select ok(not pgflow_tests.message_exists('two_roots', :'stray_msg', 'q'), 'queued message of the pruned run deleted from the queue');
select ok(not pgflow_tests.message_exists('two_roots', :'stray_msg', 'a'), 'and not moved to the archive');

select * from finish();
rollback;
