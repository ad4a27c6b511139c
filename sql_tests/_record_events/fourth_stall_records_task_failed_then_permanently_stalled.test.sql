begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a one-step flow (timeout 60 s); the task claimed and stalled four times
select pgflow.create_flow('stall', max_attempts => 10, timeout => 60);
select pgflow.add_step('stall', 'only');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'stall', 'x');
select run_id as run from pgflow.start_flow('stall', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('stall', '11111111-1111-1111-1111-111111111111', 10, 30, null);
update pgflow.step_tasks set queued_at = now() - interval '2 hours', started_at = now() - interval '1 hour' where run_id = :'run';
select pgflow.requeue_stalled_tasks();
select count(*) from pgflow.read_and_start_tasks('stall', '11111111-1111-1111-1111-111111111111', 10, 30, null);
update pgflow.step_tasks set queued_at = now() - interval '2 hours', started_at = now() - interval '1 hour' where run_id = :'run';
select pgflow.requeue_stalled_tasks();
select count(*) from pgflow.read_and_start_tasks('stall', '11111111-1111-1111-1111-111111111111', 10, 30, null);
update pgflow.step_tasks set queued_at = now() - interval '2 hours', started_at = now() - interval '1 hour' where run_id = :'run';
select pgflow.requeue_stalled_tasks();
select count(*) from pgflow.read_and_start_tasks('stall', '11111111-1111-1111-1111-111111111111', 10, 30, null);
update pgflow.step_tasks set queued_at = now() - interval '2 hours', started_at = now() - interval '1 hour' where run_id = :'run';

select max(id) as before_give_up from pgflow.run_events \gset

-- TEST: three task:requeued, then (after the 3rd requeue) the task given up on:
-- task:failed (retry false, the stall error) and then task:permanently_stalled
-- {attempt 4, requeued_count 3}, all by system
select is(pgflow.requeue_stalled_tasks(), 0, 'precondition: the fourth stall is not requeued');
select results_eq(
  format($$select event, actor, details from pgflow.run_events
           where run_id = %L and task_index = 0 order by id$$, :'run'),
  $$values ('task:requeued'::text, 'system'::text, '{"attempt": 1, "requeued_count": 1}'::jsonb),
           ('task:requeued', 'system', '{"attempt": 2, "requeued_count": 2}'),
           ('task:requeued', 'system', '{"attempt": 3, "requeued_count": 3}'),
           ('task:failed', 'system', '{"attempt": 4, "retry": false, "error_message":
              "Task stalled: its worker stopped without reporting 4 times (3 requeues); given up"}'),
           ('task:permanently_stalled', 'system', '{"attempt": 4, "requeued_count": 3}')$$,
  'requeued x3, then failed for good, then permanently_stalled'
);

-- TEST: the give-up writes exactly these events, all by system with the reason: the task's
-- two, and the step and run failing (when_exhausted fail)
select set_eq(
  format($$select event, step_slug, task_index, actor, reason from pgflow.run_events
           where id > %s$$, :'before_give_up'),
  $$values ('task:failed'::text, 'only'::text, 0, 'system'::text, 'stalled again after 3 requeues'::text),
           ('step:failed', 'only', null, 'system', 'stalled again after 3 requeues'),
           ('run:failed', null, null, 'system', 'stalled again after 3 requeues'),
           ('task:permanently_stalled', 'only', 0, 'system', 'stalled again after 3 requeues')$$,
  'task:failed, step:failed, run:failed, task:permanently_stalled; actor system, reason given'
);
select is(
  (select details from pgflow.run_events where id > :before_give_up and event = 'step:failed'),
  '{"error_message": "Task stalled: its worker stopped without reporting 4 times (3 requeues); given up"}'::jsonb,
  'step:failed carries the stall error');

select * from finish();
rollback;
