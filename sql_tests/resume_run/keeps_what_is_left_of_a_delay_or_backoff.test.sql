begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow "delays" (3 attempts, base_delay 100): root "slow" starts after 60 s, root
-- "flaky" is started; the run is paused, then flaky's first attempt fails (retry in 200 s,
-- parked)
select pgflow.create_flow('delays', max_attempts => 3, base_delay => 100);
select pgflow.add_step('delays', 'slow', start_delay => 60);
select pgflow.add_step('delays', 'flaky');
select run_id as run from pgflow.start_flow('delays', '{}'::jsonb) \gset
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'delays', 'x');
select count(*) from pgflow.read_and_start_tasks('delays', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select count(*) from pgflow.pause_run(:'run', 'alice', null);
select count(*) from pgflow.fail_task(:'run', 'flaky', 0, 'flaky', 1);
select pgflow_tests.task_msg_id(:'run', 'slow') as slow_msg,
       pgflow_tests.task_msg_id(:'run', 'flaky') as flaky_msg \gset

-- TEST: the setup parked both (the queue is empty)
select is(pgflow_tests.queue_count('delays'), 0::bigint, 'both messages are parked');

-- TEST: resume_run sends new messages visible when the old ones would have been
select count(*) from pgflow.resume_run(:'run', 'carol', null);
select pgflow_tests.task_msg_id(:'run', 'slow') as slow_new,
       pgflow_tests.task_msg_id(:'run', 'flaky') as flaky_new \gset
select ok(:slow_new::bigint <> :slow_msg::bigint and :flaky_new::bigint <> :flaky_msg::bigint,
          'both tasks have new message ids');
select ok(
  pgflow_tests.message_vt_seconds('delays', :slow_new::bigint) between 50 and 62,
  'the start-delayed task''s new message is hidden for what is left of its 60 s'
);
select ok(
  pgflow_tests.message_vt_seconds('delays', :flaky_new::bigint) between 190 and 202,
  'the retry''s new message is hidden for what is left of its 200 s backoff'
);
select is(
  (select count(*) from pgflow.read_and_start_tasks('delays', '11111111-1111-1111-1111-111111111111', 10, 30, null)),
  0::bigint, 'no worker can claim either yet');
select results_eq(
  format($$select step_slug, status, attempts_count from pgflow.step_tasks where run_id = %L order by step_slug$$, :'run'),
  $$values ('flaky'::text, 'queued'::text, 1), ('slow', 'queued', 0)$$,
  'both tasks are queued, flaky after one attempt'
);

select * from finish();
rollback;
