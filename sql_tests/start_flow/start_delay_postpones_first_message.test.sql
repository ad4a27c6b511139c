begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root step with a 30 s start delay and one without
select pgflow.create_flow('delayed');
select pgflow.add_step('delayed', 'later', start_delay => 30);
select pgflow.add_step('delayed', 'now');
select run_id from pgflow.start_flow('delayed', '{}'::jsonb) \gset

-- TEST: the delayed step's message becomes visible after opt_start_delay seconds
select cmp_ok(
  pgflow_tests.message_vt_seconds('delayed', pgflow_tests.task_msg_id(:'run_id', 'later')),
  '>',
  28::numeric,
  'the message of a step with start_delay 30 is invisible for about 30 s (lower bound)'
);
select cmp_ok(
  pgflow_tests.message_vt_seconds('delayed', pgflow_tests.task_msg_id(:'run_id', 'later')),
  '<=',
  30::numeric,
  'the message of a step with start_delay 30 is invisible for about 30 s (upper bound)'
);

-- TEST: a step without start_delay is visible at once
select cmp_ok(
  pgflow_tests.message_vt_seconds('delayed', pgflow_tests.task_msg_id(:'run_id', 'now')),
  '<=',
  0::numeric,
  'the message of a step without start_delay is visible immediately'
);

select * from finish();
rollback;
