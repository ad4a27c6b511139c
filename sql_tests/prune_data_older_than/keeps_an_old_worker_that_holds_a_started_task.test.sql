begin;
select plan(4);

-- SETUP: two workers silent for 10 days; the first still holds a started task (its claim
-- is backdated: a task stalled for good, or a run paused for that long, keeps it started)
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');
insert into pgflow.workers (worker_id, queue_name, function_name, started_at, last_heartbeat_at)
values ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 'sequential', 'holder', now() - interval '11 days', now() - interval '10 days'),
       ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb', 'sequential', 'idle', now() - interval '11 days', now() - interval '10 days');
update pgflow.step_tasks set last_worker_id = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'
where run_id = :'run_id' and step_slug = 'first';

select lives_ok($$select pgflow.prune_data_older_than(interval '7 days')$$, 'prune runs');

-- TEST: the worker holding the started task is kept, and the task still names it (deleting
-- the worker would clear last_worker_id of a started task without its run's lock)
select is(
  (select count(*)::int from pgflow.workers where worker_id = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'),
  1,
  'the old worker that holds a started task is kept'
);
select is(
  (select last_worker_id::text from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa',
  'its started task still names it'
);

-- TEST: the old worker without a started task goes
select is(
  (select count(*)::int from pgflow.workers where worker_id = 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'),
  0,
  'the old worker without a started task is deleted'
);

select * from finish();
rollback;
