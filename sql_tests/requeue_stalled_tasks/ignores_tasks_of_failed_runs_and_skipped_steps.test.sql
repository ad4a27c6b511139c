begin;
select plan(4);

-- SETUP: four runs, each with a started task whose worker died long ago; then
-- * failed_run fails (_fail_run): its task is cancelled, its message archived;
-- * skipped_run's step is skipped: its task is cancelled, its message archived;
-- * legacy_failed_run and legacy_skipped_run are left in the state a run failure or a skip
--   made before they cancelled tasks (run failed / step skipped by a direct UPDATE, message
--   archived, task still started).
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id as failed_run from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as legacy_failed_run from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as skipped_run from pgflow.start_flow('stall', '{}'::jsonb) \gset
select run_id as legacy_skipped_run from pgflow.start_flow('stall', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('stall', 1, 4);
select pgflow_tests.backdate_started_tasks(interval '1 hour');
select pgflow._fail_run(:'failed_run', 'operator stopped it');
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'legacy_failed_run';
select pgflow._archive_task_message(:'legacy_failed_run', 'only', 0);
select pgflow._cascade_force_skip_steps(:'skipped_run', 'only', 'condition_unmet');
update pgflow.step_states
set status = 'skipped', skip_reason = 'condition_unmet', skipped_at = now(), remaining_tasks = null
where run_id = :'legacy_skipped_run';
select pgflow._archive_task_message(:'legacy_skipped_run', 'only', 0);

-- TEST: requeue_stalled_tasks leaves all four tasks alone: they are no longer work
select is(pgflow.requeue_stalled_tasks(), 0, 'nothing is requeued');
select results_eq(
  format($$select run_id, status, requeued_count from pgflow.step_tasks
           order by case run_id when %1$L then 1 when %2$L then 2 when %3$L then 3 when %4$L then 4 end$$,
         :'failed_run', :'legacy_failed_run', :'skipped_run', :'legacy_skipped_run'),
  format($$values (%1$L::uuid, 'cancelled'::text, 0), (%2$L, 'started', 0),
                  (%3$L, 'cancelled', 0), (%4$L, 'started', 0)$$,
         :'failed_run', :'legacy_failed_run', :'skipped_run', :'legacy_skipped_run'),
  'tasks cancelled by a run failure or a skip stay cancelled; started tasks of a (legacy) failed run or skipped step stay started; requeued_count 0'
);
select is(pgflow_tests.queue_count('stall', 'q'), 0::bigint, 'no message reappears in the queue');
select is(
  (select count(*)::int from pgflow.permanently_stalled_tasks), 0, 'nothing is reported as permanently stalled');

select * from finish();
rollback;
