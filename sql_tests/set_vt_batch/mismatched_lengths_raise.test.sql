begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP
select pgmq.create('vt_queue');
select pgmq.send('vt_queue', '{"n": 1}'::jsonb) as m1 \gset
select pgmq.send('vt_queue', '{"n": 2}'::jsonb) as m2 \gset

-- TEST: arrays of different lengths are rejected and nothing changes
select throws_ok(
  format('select * from pgflow.set_vt_batch(%L, array[%s, %s]::bigint[], array[10])', 'vt_queue', :m1, :m2),
  null,
  null,
  'msg_ids and vt_offsets of different lengths raise'
);
select cmp_ok(pgflow_tests.message_vt_seconds('vt_queue', :m1), '<=', 0::numeric,
  'no message vt was changed');

select * from finish();
rollback;
