begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: flow lim limited to 1 run per key; a holder, then three queued runs whose run ids
-- sort the other way round from their start order (so run_id order cannot pass for queue order)
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.keyed_run('lim', 'ck') as holder \gset
select pgflow_tests.keyed_run('lim', 'ck', 'ffffffff-0000-0000-0000-000000000001') as first_queued \gset
select pgflow_tests.keyed_run('lim', 'ck', 'eeeeeeee-0000-0000-0000-000000000002') as second_queued \gset
select pgflow_tests.keyed_run('lim', 'ck', 'dddddddd-0000-0000-0000-000000000003') as third_queued \gset
-- the queued runs waited a while (queued_at, and started_at that start_flow set, moved back)
update pgflow.runs set queued_at = now() - interval '1 minute', started_at = now() - interval '1 minute'
where status = 'queued';
select pgflow_tests.queue_count('lim') as messages_before \gset

-- TEST: when the holder completes, the first queued run (lowest queue_seq) starts, only it
select pgflow_tests.end_run(:'holder', 'completed');
select results_eq(
  $$select run_id, status from pgflow.runs where concurrency_key = 'ck' and status in ('queued', 'started')
    order by queue_seq$$,
  format($$values (%L::uuid, 'started'::text), (%L::uuid, 'queued'::text), (%L::uuid, 'queued'::text)$$,
         :'first_queued', :'second_queued', :'third_queued'),
  'the first queued run starts; the later ones stay queued'
);

-- TEST: the started run keeps queued_at and queue_seq; started_at is now (>= queued_at)
select results_eq(
  format($$select started_at = now(), started_at >= queued_at, queue_seq is not null
           from pgflow.runs where run_id = %L$$, :'first_queued'),
  $$values (true, true, true)$$,
  'started_at is the start time, after queued_at; queued_at and queue_seq are kept'
);

-- TEST: run:started is recorded with details.queued_at, then its root step starts
select results_eq(
  format($$select event, (details->>'queued_at')::timestamptz = now() - interval '1 minute',
                  details->>'concurrency_key'
           from pgflow.run_events where run_id = %L and event = 'run:started'$$, :'first_queued'),
  $$values ('run:started'::text, true, 'ck'::text)$$,
  'run:started carries the queued_at it waited since and the key'
);
select is(
  (select array_agg(event order by id) from pgflow.run_events where run_id = :'first_queued'),
  array['run:queued', 'run:started', 'step:started'],
  'its trail: run:queued, run:started, step:started'
);
select results_eq(
  format($$select status, started_at is not null, remaining_tasks from pgflow.step_states where run_id = %L$$,
         :'first_queued'),
  $$values ('started'::text, true, 1)$$,
  'its root step is started'
);
select results_eq(
  format($$select status, message_id is not null from pgflow.step_tasks where run_id = %L$$, :'first_queued'),
  $$values ('queued'::text, true)$$,
  'its root task is queued with a message'
);
select ok(
  pgflow_tests.message_exists('lim', pgflow_tests.task_msg_id(:'first_queued', 'work')),
  'the message is in the flow queue'
);
select is(
  pgflow_tests.queue_count('lim'),
  :'messages_before'::bigint,
  'the queue holds as many messages as before: the holder''s went, the started run''s came'
);

-- TEST: the next ones follow in queue order, one per freed slot
select pgflow_tests.end_run(:'first_queued', 'failed');
select is(pgflow_tests.run_status(:'second_queued'), 'started', 'the second queued run starts next');
select is(pgflow_tests.run_status(:'third_queued'), 'queued', 'the third still waits');

select * from finish();
rollback;
