begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP
select pgmq.create('vt_queue');
select pgmq.send('vt_queue', '{"n": 1}'::jsonb) as m1 \gset

-- TEST: nothing to do -> empty result, no error
select is((select count(*)::int from pgflow.set_vt_batch('vt_queue', array[]::bigint[], array[]::int[])), 0,
  'empty arrays give an empty result');
select is((select count(*)::int from pgflow.set_vt_batch('vt_queue', null, null)), 0,
  'NULL arrays give an empty result');
select is((select count(*)::int from pgflow.set_vt_batch('vt_queue', array[999999]::bigint[], array[5])), 0,
  'an unknown message id gives an empty result');
select cmp_ok(pgflow_tests.message_vt_seconds('vt_queue', :m1), '<=', 0::numeric,
  'the existing message is untouched');

select * from finish();
rollback;
