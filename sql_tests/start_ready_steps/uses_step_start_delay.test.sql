begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: first -> second (start_delay 60)
select pgflow.create_flow('delay_dep');
select pgflow.add_step('delay_dep', 'first');
select pgflow.add_step('delay_dep', 'second', array['first'], start_delay => 60);
select run_id from pgflow.start_flow('delay_dep', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'first');

-- TEST: the dependent step's message is delayed by its start_delay
select cmp_ok(
  pgflow_tests.message_vt_seconds('delay_dep', pgflow_tests.task_msg_id(:'run_id', 'second')),
  '>',
  58::numeric,
  'the message is invisible for about start_delay seconds (lower bound)'
);
select cmp_ok(
  pgflow_tests.message_vt_seconds('delay_dep', pgflow_tests.task_msg_id(:'run_id', 'second')),
  '<=',
  60::numeric,
  'the message is invisible for about start_delay seconds (upper bound)'
);

select * from finish();
rollback;
