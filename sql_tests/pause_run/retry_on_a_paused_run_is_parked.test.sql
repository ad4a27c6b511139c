begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow "retrying" (3 attempts, base_delay 100): its task started, then the run paused
select pgflow.create_flow('retrying', max_attempts => 3, base_delay => 100);
select pgflow.add_step('retrying', 'only');
select run_id as run from pgflow.start_flow('retrying', '{}'::jsonb) \gset
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'retrying', 'x');
select count(*) from pgflow.read_and_start_tasks('retrying', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select pgflow_tests.task_msg_id(:'run', 'only') as msg \gset
select count(*) from pgflow.pause_run(:'run', 'alice', null);

-- TEST: the failed attempt is retried: the task is queued again with its error and message_id
select results_eq(
  format($$select status, error_message, attempts_count, message_id
           from pgflow.fail_task(%L, 'only', 0, 'flaky', 1)$$, :'run'),
  format($$values ('queued'::text, 'flaky'::text, 1, %s::bigint)$$, :msg),
  'fail_task queues the task again (error kept, message_id kept)'
);

-- TEST: the retry is parked, not delivered: its message is in the archive
select is(pgflow_tests.queue_count('retrying'), 0::bigint, 'the queue is empty');
select ok(pgflow_tests.message_exists('retrying', :msg::bigint, 'a'), 'the retry''s message is archived');
select cmp_ok(
  (select vt from pgmq.a_retrying where msg_id = :msg::bigint), '>', clock_timestamp() + interval '150 seconds',
  'the archived message keeps the backoff (200 s) as its visibility time'
);
select is(
  (select count(*) from pgflow.read_and_start_tasks('retrying', '11111111-1111-1111-1111-111111111111', 10, 30, null)),
  0::bigint, 'no worker can claim the retry');

-- TEST: the run stays paused; task:failed records the retry
select results_eq(
  format($$select r.status, e.details ->> 'retry' from pgflow.runs as r
           join pgflow.run_events as e on e.run_id = r.run_id and e.event = 'task:failed' where r.run_id = %L$$, :'run'),
  $$values ('paused'::text, 'true'::text)$$,
  'the run stays paused; task:failed says retry true'
);

select * from finish();
rollback;
