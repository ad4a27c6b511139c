begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP
select pgmq.create('vt_queue');
select pgmq.send('vt_queue', '{"n": 1}'::jsonb) as m1 \gset
select pgmq.send('vt_queue', '{"n": 2}'::jsonb) as m2 \gset
create temp table returned as
  select * from pgflow.set_vt_batch('vt_queue', array[:m1, :m2]::bigint[], array[30, 30]);

-- TEST: the rows come back as stored in the queue, with the documented columns
select results_eq(
  'select msg_id, read_ct, enqueued_at, vt, message, headers from returned order by msg_id',
  'select msg_id, read_ct, enqueued_at, vt, message, headers from pgmq.q_vt_queue order by msg_id',
  'returns (msg_id, read_ct, enqueued_at, vt, message, headers) of the updated rows'
);
select is(
  (select array_agg(attname::text order by attnum) from pg_attribute
   where attrelid = 'returned'::regclass and attnum > 0),
  array['msg_id', 'read_ct', 'enqueued_at', 'vt', 'message', 'headers'],
  'the result columns are named and ordered as specified'
);

select * from finish();
rollback;
