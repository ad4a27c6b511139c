begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: two runs; the first one failed while its task was still queued
select pgflow_tests.setup_flow('sequential');
select run_id as failed_run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as live_run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'failed_run';
select pgflow_tests.ensure_worker('sequential');

-- TEST: only the task of the started run is returned
select results_eq(
  format($$select run_id from pgflow.start_tasks('sequential',
             array[%s::bigint, %s::bigint], '11111111-1111-1111-1111-111111111111'::uuid)$$,
         pgflow_tests.task_msg_id(:'failed_run', 'first'),
         pgflow_tests.task_msg_id(:'live_run', 'first')),
  format($$values (%L::uuid)$$, :'live_run'),
  'a task of a failed run is ignored, the other is returned (fewer records than ids)'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'failed_run'),
  'queued',
  'the task of the failed run stays queued'
);

select * from finish();
rollback;
