begin;
select plan(11);

-- A task given up on after 3 requeues is exhausted like any other: when its step says
-- when_exhausted 'skip', the step is skipped (not failed), its dependent runs without its
-- output, and the run completes.
-- SETUP: flaky (when_exhausted skip) -> after; flaky's task requeued 3 times, started
-- again and stalled.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', max_attempts => 10, timeout => 60);
select pgflow.add_step('stall', 'flaky', when_exhausted => 'skip');
select pgflow.add_step('stall', 'after', array['flaky']);
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
update pgflow.step_tasks set requeued_count = 3 where run_id = :'run_id';
select count(*) from pgflow_tests.read_and_start('stall', 1, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select max(id) as before_give_up from pgflow.run_events \gset

-- TEST: the task is given up on: failed for good, stamped
select is(pgflow.requeue_stalled_tasks(), 0, 'nothing requeued');
select results_eq(
  format($$select status, requeued_count, attempts_count, permanently_stalled_at is not null, error_message
           from pgflow.step_tasks where run_id = %L and step_slug = 'flaky'$$, :'run_id'),
  $$values ('failed'::text, 3, 1, true,
            'Task stalled: its worker stopped without reporting 4 times (3 requeues); given up'::text)$$,
  'flaky task failed (no retry of its 9 remaining attempts), stamped permanently stalled');

-- TEST: when_exhausted skip: the step is skipped with the stall error, the run goes on
select results_eq(
  format($$select status, skip_reason, error_message from pgflow.step_states
           where run_id = %L and step_slug = 'flaky'$$, :'run_id'),
  $$values ('skipped'::text, 'handler_failed'::text,
            'Task stalled: its worker stopped without reporting 4 times (3 requeues); given up'::text)$$,
  'flaky is skipped (handler_failed) with the stall error');
select is(status, 'started', 'the run is not failed')
from pgflow.runs where run_id = :'run_id';
select is(status, 'started', 'the dependent step after is started')
from pgflow.step_states where run_id = :'run_id' and step_slug = 'after';
select is(pgflow_tests.visible_count('stall'), 1::bigint, 'after''s task message is visible');
select is((select count(*)::int from pgflow.permanently_stalled_tasks), 0, 'nothing to alert on');

-- TEST: the events: task:failed, step:skipped (with the dependent starting),
-- task:permanently_stalled, all by system with the reason; no failure of step or run
select set_eq(
  format($$select event, step_slug, actor, reason from pgflow.run_events
           where id > %s and event in ('task:failed', 'step:skipped', 'task:permanently_stalled')$$,
         :'before_give_up'),
  $$values ('task:failed'::text, 'flaky'::text, 'system'::text, 'stalled again after 3 requeues'::text),
           ('step:skipped', 'flaky', 'system', 'stalled again after 3 requeues'),
           ('task:permanently_stalled', 'flaky', 'system', 'stalled again after 3 requeues')$$,
  'task:failed, step:skipped and task:permanently_stalled by system');
select is(
  (select count(*)::int from pgflow.run_events
   where id > :before_give_up and event in ('step:failed', 'run:failed')),
  0, 'no step:failed nor run:failed recorded');

-- TEST: the dependent runs and the run completes
select is(step_slug, 'after', 'a worker starts after')
from pgflow_tests.read_and_start('stall', 1, 1);
select pgflow.complete_task(:'run_id', 'after', 0, '"done"'::jsonb);
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, '{"after": "done"}'::jsonb)$$,
  'the run completes with after''s output');

select * from finish();
rollback;
