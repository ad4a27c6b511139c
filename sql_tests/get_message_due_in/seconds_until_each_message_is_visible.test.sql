begin;
select plan(6);
select pgflow_tests.reset_db();

-- Flow 'a' with two queued tasks: one visible now, one waiting 40 s (a retry's backoff).
select pgflow.create_flow('a');
select pgflow.add_step('a', 'only');
select pgflow.start_flow('a', '{}'::jsonb) from generate_series(1, 2);
select min(msg_id) as first, max(msg_id) as second from pgmq.q_a \gset
update pgmq.q_a set vt = clock_timestamp() + interval '40 seconds' where msg_id = :second;

-- TEST: one row per message found, in id order: the waiting one is due in about 40 s, the
-- visible one is already due (zero or less)
select is(
  array(select message_id from pgflow.get_message_due_in('a', array[:second, :first]::bigint[])),
  array[:first, :second]::bigint[],
  'one row per message, in id order'
);
select ok(
  (select due_in_seconds between 30 and 40 from pgflow.get_message_due_in('a', array[:second]::bigint[])),
  'the message hidden 40 s is due in at most 40 s'
);
select ok(
  (select due_in_seconds <= 0 from pgflow.get_message_due_in('a', array[:first]::bigint[])),
  'a visible message is due now'
);

-- TEST: ids not in the queue, NULL ids and a flow without a queue give no row (no error)
select is_empty($$ select * from pgflow.get_message_due_in('a', array[-1, null]::bigint[]) $$,
  'unknown and NULL ids give nothing');
select is_empty($$ select * from pgflow.get_message_due_in('no_such_flow', array[1]::bigint[]) $$,
  'a flow without a queue gives nothing');

-- TEST: operators may call it without pgmq privileges; workers may not
set local role pgflow_operator;
select is((select count(*) from pgflow.get_message_due_in('a', array[:first]::bigint[])), 1::bigint,
  'pgflow_operator reads when a message is due');
reset role;

select * from finish();
rollback;
