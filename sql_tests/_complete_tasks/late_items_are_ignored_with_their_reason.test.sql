begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: four runs of sequential with first's task started; then
--   r_stale: reported with attempt 5 (the task is at attempt 1: an attempt it never had)
--   r_failed: the run failed
--   r_skipped: the step is skipped while its task is started (message still in the queue)
--   r_queued: a root map task that was never started
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.setup_flow('root_map');
select run_id as r_stale from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r_failed from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r_skipped from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r_queued from pgflow.start_flow('root_map', '[1]'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('sequential', 30, 3);
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'r_failed';
select pgflow_tests.mark_step_skipped(:'r_skipped', 'first');

-- TEST: each late item is ignored with its reason
select results_eq(
  format($$select ord, outcome, reason, detail from pgflow._complete_tasks(
      array[1, 2, 3, 4], array[%L, %L, %L, %L]::uuid[], array['first', 'first', 'first', 'items'],
      array[0, 0, 0, 0], array['1', '2', '3', '4']::jsonb[], array[5, null, null, null])$$,
    :'r_stale', :'r_failed', :'r_skipped', :'r_queued'),
  $$values (1, 'ignored'::text, 'unknown_attempt'::text, null::text), (2, 'ignored', 'run_failed', null),
           (3, 'ignored', 'step_not_started', null), (4, 'ignored', 'task_not_started', null)$$,
  'unknown_attempt, run_failed, step_not_started, task_not_started'
);

-- TEST: nothing was completed
select is((select count(*)::int from pgflow.step_tasks where status = 'completed'), 0, 'no task is completed');
select is(
  (select status from pgflow.step_tasks where run_id = :'r_stale'),
  'started',
  'the stale report left the task started'
);

-- TEST: only the step_not_started item archives its message
select is(
  (select array_agg(t.run_id = :'r_skipped') from pgflow.step_tasks as t
   where pgflow_tests.message_exists(t.flow_slug, t.message_id, 'a')),
  array[true],
  'only the skipped step''s message is archived'
);

select * from finish();
rollback;
