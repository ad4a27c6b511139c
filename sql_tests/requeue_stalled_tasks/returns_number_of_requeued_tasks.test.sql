begin;
select plan(5);

-- SETUP: two runs of a map flow (3 elements each) plus one single-step flow. All tasks
-- started and stalled; one task of the single flow has reached the requeue limit (it is
-- given up on, failed, and not counted).
select pgflow_tests.reset_db();
select pgflow.create_flow('maps', timeout => 60);
select pgflow.add_step('maps', 'items', step_type => 'map');
select pgflow.create_flow('single', timeout => 30);
select pgflow.add_step('single', 'only');
select pgflow.start_flow('maps', '[1, 2, 3]'::jsonb);
select pgflow.start_flow('maps', '[4, 5, 6]'::jsonb);
select run_id as limit_run from pgflow.start_flow('single', '{}'::jsonb) \gset
select pgflow.start_flow('single', '{}'::jsonb);
select count(*) from pgflow_tests.read_and_start('maps', 1, 10);
select count(*) from pgflow_tests.read_and_start('single', 1, 10);
update pgflow.step_tasks set requeued_count = 3 where run_id = :'limit_run';
select pgflow_tests.backdate_started_tasks(interval '10 minutes');

-- TEST: the count covers every requeued task of every flow and run, and nothing else
select is(pgflow.requeue_stalled_tasks(), 7, 'returns 7: six map tasks and one single task');
select is(count(*)::int, 7, 'seven tasks are queued with requeued_count 1')
from pgflow.step_tasks where status = 'queued' and requeued_count = 1;
select results_eq(
  $$select run_id, status, requeued_count from pgflow.step_tasks where permanently_stalled_at is not null$$,
  format($$values (%L::uuid, 'failed'::text, 3)$$, :'limit_run'),
  'the task at the limit is given up on instead (failed, stamped), the only one');
select is(pgflow_tests.visible_count('maps'), 6::bigint, 'six map messages visible');
select is(pgflow_tests.visible_count('single'), 1::bigint, 'one single-flow message visible (the other archived)');

select * from finish();
rollback;
