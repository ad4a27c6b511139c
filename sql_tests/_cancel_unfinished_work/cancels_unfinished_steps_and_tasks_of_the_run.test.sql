begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: roots "done" (completed), "busy" (task started), "waiting" (task queued) and "after"
-- (created, depends on busy); a second run of the flow untouched
select pgflow.create_flow('four', max_attempts => 1);
select pgflow.add_step('four', 'done');
select pgflow.add_step('four', 'busy');
select pgflow.add_step('four', 'waiting');
select pgflow.add_step('four', 'after', array['busy']);
select run_id as run from pgflow.start_flow('four', '{}'::jsonb) \gset
select run_id as other from pgflow.start_flow('four', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run', 'done');
select count(*) from pgflow_tests.start_task(:'run', 'busy');
select pgflow_tests.task_msg_id(:'run', 'busy') as msg_busy, pgflow_tests.task_msg_id(:'run', 'waiting') as msg_waiting \gset
select max(id) as last_id from pgflow.run_events \gset
select set_config('pgflow.actor', 'tester', true);

select pgflow._cancel_unfinished_work(array[:'run']::uuid[]);

-- TEST: started and created steps are cancelled now; the completed one is left
select results_eq(
  format($$select step_slug, status, cancelled_at is not distinct from now() from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run'),
  $$values ('after'::text, 'cancelled'::text, true), ('busy', 'cancelled', true),
           ('done', 'completed', false), ('waiting', 'cancelled', true)$$,
  'after (created), busy and waiting (started) cancelled; done completed'
);

-- TEST: started and queued tasks are cancelled now; the completed one is left
select results_eq(
  format($$select step_slug, status, cancelled_at is not distinct from now() from pgflow.step_tasks
           where run_id = %L order by step_slug$$, :'run'),
  $$values ('busy'::text, 'cancelled'::text, true), ('done', 'completed', false), ('waiting', 'cancelled', true)$$,
  'busy (started) and waiting (queued) tasks cancelled; done completed'
);

-- TEST: their messages are archived
select ok(not pgflow_tests.message_exists('four', :msg_busy, 'q') and not pgflow_tests.message_exists('four', :msg_waiting, 'q'),
  'the cancelled tasks'' messages left the queue');
select ok(pgflow_tests.message_exists('four', :msg_busy, 'a') and pgflow_tests.message_exists('four', :msg_waiting, 'a'),
  'and are in the archive');

-- TEST: one step:cancelled per cancelled step, by the actor set; no task event
select bag_eq(
  format($$select run_id, step_slug, event, actor from pgflow.run_events where id > %s$$, :last_id),
  format($$values (%1$L::uuid, 'after'::text, 'step:cancelled'::text, 'tester'::text),
                  (%1$L, 'busy', 'step:cancelled', 'tester'), (%1$L, 'waiting', 'step:cancelled', 'tester')$$, :'run'),
  'step:cancelled for after, busy and waiting, nothing else'
);

-- TEST: the run itself (the caller's business) and the other run are left alone
select is((select status from pgflow.runs where run_id = :'run'), 'started', 'the run''s status is not changed');
select results_eq(
  format($$select count(*)::int from pgflow.step_tasks where run_id = %L and status = 'queued'$$, :'other'),
  $$values (3)$$, 'the other run''s three root tasks are still queued');

select * from finish();
rollback;
