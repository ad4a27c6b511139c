begin;
select plan(4);

-- SETUP: two runs, each with a started task whose worker died long ago; then the first
-- run fails (its messages are archived) and the second run's step is skipped.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as failed_run from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as skipped_run from pgflow.start_flow('stall', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('stall', 1, 2);
select pgflow_tests.backdate_started_tasks(interval '1 hour');
select pgflow._fail_run(:'failed_run', 'operator stopped it');
select pgflow._cascade_force_skip_steps(:'skipped_run', 'only', 'condition_unmet');

-- TEST: requeue_stalled_tasks leaves both tasks alone: they are no longer work
select is(pgflow.requeue_stalled_tasks(), 0, 'nothing is requeued');
select is(
  (select count(*)::int from pgflow.step_tasks where status = 'started' and requeued_count = 0),
  2, 'both tasks keep status started and requeued_count 0');
select is(pgflow_tests.queue_count('stall', 'q'), 0::bigint, 'no message reappears in the queue');
select is(
  (select count(*)::int from pgflow.permanently_stalled_tasks), 0, 'nothing is reported as permanently stalled');

select * from finish();
rollback;
