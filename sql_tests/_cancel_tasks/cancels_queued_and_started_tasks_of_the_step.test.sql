begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: a flow with two roots, a map "items" (4 tasks) and a single "other"; items task 0
-- completed, 1 started, 2 queued, 3 failed (by hand); other queued
select pgflow.create_flow('mixed', max_attempts => 1);
select pgflow.add_step('mixed', 'items', step_type => 'map');
select pgflow.add_step('mixed', 'other');
select run_id as run from pgflow.start_flow('mixed', '[1, 2, 3, 4]'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run', 'items', 0, '"a"'::jsonb);
select count(*) from pgflow_tests.start_task(:'run', 'items', 1);
select count(*) from pgflow_tests.start_task(:'run', 'items', 3);
update pgflow.step_tasks set status = 'failed', failed_at = now(), error_message = 'x'
where run_id = :'run' and step_slug = 'items' and task_index = 3;
select pgflow_tests.task_msg_id(:'run', 'items', 1) as msg1, pgflow_tests.task_msg_id(:'run', 'items', 2) as msg2,
       pgflow_tests.task_msg_id(:'run', 'other') as msg_other \gset
select max(id) as last_id from pgflow.run_events \gset

select pgflow._cancel_tasks(array[:'run']::uuid[], array['items']);

-- TEST: the started and the queued task of the step are cancelled (cancelled_at now); the
-- completed and failed ones are left as they were
select results_eq(
  format($$select task_index, status, cancelled_at is not distinct from now() from pgflow.step_tasks
           where run_id = %L and step_slug = 'items' order by task_index$$, :'run'),
  $$values (0, 'completed'::text, false), (1, 'cancelled', true), (2, 'cancelled', true), (3, 'failed', false)$$,
  'tasks 1 (started) and 2 (queued) cancelled now; 0 completed and 3 failed untouched'
);

-- TEST: their messages are archived, not deleted
select ok(not pgflow_tests.message_exists('mixed', :msg1, 'q') and not pgflow_tests.message_exists('mixed', :msg2, 'q'),
  'their messages left the queue');
select ok(pgflow_tests.message_exists('mixed', :msg1, 'a') and pgflow_tests.message_exists('mixed', :msg2, 'a'),
  'their messages are in the archive');

-- TEST: the other step of the run and the step states are left alone; nothing is recorded
select results_eq(
  format($$select status from pgflow.step_tasks where run_id = %L and step_slug = 'other'$$, :'run'),
  $$values ('queued'::text)$$, 'the other step''s task is still queued');
select ok(pgflow_tests.message_exists('mixed', :msg_other, 'q'), 'with its message in the queue');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run'),
  $$values ('items'::text, 'started'::text), ('other', 'started')$$,
  'step states unchanged (the caller''s business)');
select is((select count(*)::int from pgflow.run_events where id > :last_id), 0, 'no run event (cancelling a task is not a task event)');

select * from finish();
rollback;
