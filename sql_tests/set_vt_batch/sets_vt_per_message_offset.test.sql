begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a plain queue with three messages
select pgmq.create('vt_queue');
select pgmq.send('vt_queue', '{"n": 1}'::jsonb) as m1 \gset
select pgmq.send('vt_queue', '{"n": 2}'::jsonb) as m2 \gset
select pgmq.send('vt_queue', '{"n": 3}'::jsonb) as m3 \gset
select count(*) from pgflow.set_vt_batch('vt_queue', array[:m1, :m2]::bigint[], array[10, 100]);

-- TEST: each message gets its own offset from now
select cmp_ok(pgflow_tests.message_vt_seconds('vt_queue', :m1), '>', 8::numeric,
  'the first id gets the first offset (about 10 s, lower bound)');
select cmp_ok(pgflow_tests.message_vt_seconds('vt_queue', :m1), '<=', 10::numeric,
  'the first id gets the first offset (about 10 s, upper bound)');
select cmp_ok(pgflow_tests.message_vt_seconds('vt_queue', :m2), '>', 98::numeric,
  'the second id gets the second offset (about 100 s)');

-- TEST: other messages keep their vt
select cmp_ok(pgflow_tests.message_vt_seconds('vt_queue', :m3), '<=', 0::numeric,
  'a message not listed is not changed');

select * from finish();
rollback;
