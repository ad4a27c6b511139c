begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: a flow queue message
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow.set_vt_batch('sequential',
  array[pgflow_tests.task_msg_id(:'run_id', 'first')], array[42]);

-- TEST: the flow queue table is found through pgmq.format_table_name
select cmp_ok(
  pgflow_tests.message_vt_seconds('sequential', pgflow_tests.task_msg_id(:'run_id', 'first')),
  '>', 40::numeric,
  'the message of the flow queue gets vt about 42 s from now'
);

select * from finish();
rollback;
