begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a one-step flow (timeout 60 s); the task claimed by worker 1111..., then its claim
-- moved one hour back (queued_at too: started_at >= queued_at)
select pgflow.create_flow('stall', max_attempts => 10, timeout => 60);
select pgflow.add_step('stall', 'only');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'stall', 'x');
select run_id as run from pgflow.start_flow('stall', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('stall', '11111111-1111-1111-1111-111111111111', 10, 30, null);
update pgflow.step_tasks set queued_at = now() - interval '2 hours', started_at = now() - interval '1 hour'
where run_id = :'run';
select max(id) as last_id from pgflow.run_events \gset

-- TEST: the requeue writes one task:requeued by system, details {attempt 1, requeued_count 1}
select is(pgflow.requeue_stalled_tasks(), 1, 'precondition: the task is requeued');
select results_eq(
  format($$select run_id, step_slug, task_index, event, actor, reason, details from pgflow.run_events
           where id > %s order by id$$, :last_id),
  format($$values (%L::uuid, 'only'::text, 0, 'task:requeued'::text, 'system'::text, null::text,
                   '{"attempt": 1, "requeued_count": 1}'::jsonb)$$, :'run'),
  'task:requeued by system {attempt: 1, requeued_count: 1}, nothing else (no task:failed)'
);

-- TEST: with pgflow.actor set (e.g. an operator running the requeue by hand), it is the actor
select count(*) from pgflow.read_and_start_tasks('stall', '11111111-1111-1111-1111-111111111111', 10, 30, null);
update pgflow.step_tasks set queued_at = now() - interval '2 hours', started_at = now() - interval '1 hour'
where run_id = :'run';
select set_config('pgflow.actor', 'ops', true), set_config('pgflow.reason', 'manual sweep', true);
select pgflow.requeue_stalled_tasks();
select results_eq(
  format($$select event, actor, reason, details from pgflow.run_events
           where run_id = %L and event = 'task:requeued' order by id desc limit 1$$, :'run'),
  $$values ('task:requeued'::text, 'ops'::text, 'manual sweep'::text, '{"attempt": 2, "requeued_count": 2}'::jsonb)$$,
  'second requeue by the actor set, with its reason'
);

select * from finish();
rollback;
