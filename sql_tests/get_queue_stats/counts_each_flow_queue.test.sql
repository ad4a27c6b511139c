begin;
select plan(8);
select pgflow_tests.reset_db();

-- Two flows: 'a' with three queued tasks (one of them invisible, as a retry waiting for its
-- backoff), 'b' with an empty queue.
select pgflow.create_flow('a');
select pgflow.add_step('a', 'only');
select pgflow.create_flow('b');
select pgflow.add_step('b', 'only');
select pgflow.start_flow('a', '{}'::jsonb) from generate_series(1, 3);
update pgmq.q_a set vt = now() - interval '90 seconds'
where msg_id = (select min(msg_id) from pgmq.q_a);
update pgmq.q_a set vt = now() + interval '40 seconds'
where msg_id = (select max(msg_id) from pgmq.q_a);

-- TEST: one row per flow queue, in flow order, counting all and visible messages
select results_eq(
  $$ select flow_slug, messages, visible_messages from pgflow.get_queue_stats() $$,
  $$ values ('a', 3::bigint, 2::bigint), ('b', 0::bigint, 0::bigint) $$,
  'messages and visible messages per flow queue'
);

-- TEST: the backlog's age: since the longest-waiting visible message became visible; 0
-- for an empty queue, and for a queue whose messages are all invisible
select ok(
  (select oldest_message_age_seconds between 90 and 120 from pgflow.get_queue_stats() where flow_slug = 'a'),
  'a message of a has been visible for 90 s (by the clock, so a little more)'
);
select is(
  (select oldest_message_age_seconds from pgflow.get_queue_stats() where flow_slug = 'b'),
  0::double precision,
  'an empty queue has no backlog'
);

update pgmq.q_a set vt = now() + interval '1 hour';
select is(
  (select oldest_message_age_seconds from pgflow.get_queue_stats() where flow_slug = 'a'),
  0::double precision,
  'invisible messages (tasks running, retries in backoff) are no backlog'
);

-- TEST: a flow whose queue is gone is left out (no error)
select pgmq.drop_queue('b');
select is(
  array(select flow_slug from pgflow.get_queue_stats()),
  array['a'],
  'a flow without its queue has no row'
);

-- TEST: operators may call it without any pgmq privilege; clients and workers may not
set local role pgflow_operator;
select is((select count(*) from pgflow.get_queue_stats()), 1::bigint, 'pgflow_operator reads the queue stats');
reset role;
set local role pgflow_client;
select throws_ok('select * from pgflow.get_queue_stats()', '42501', null, 'pgflow_client may not');
reset role;
set local role pgflow_worker;
select throws_ok('select * from pgflow.get_queue_stats()', '42501', null, 'pgflow_worker may not');
reset role;

select * from finish();
rollback;
