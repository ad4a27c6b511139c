begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: check -> gate (requires {"check": {"ok": true}}, when_unmet fail); slow is a
-- second root whose message is still queued and busy is a third root already started
select pgflow.create_flow('cond_fail2');
select pgflow.add_step('cond_fail2', 'check');
select pgflow.add_step('cond_fail2', 'slow');
select pgflow.add_step('cond_fail2', 'busy');
select pgflow.add_step('cond_fail2', 'gate', array['check'],
  required_input_pattern => '{"check": {"ok": true}}', when_unmet => 'fail');
select run_id from pgflow.start_flow('cond_fail2', '{}'::jsonb) \gset
select pgflow_tests.start_task(:'run_id', 'busy');
select pgflow_tests.start_and_complete_task(:'run_id', 'check', 0, '{"ok": false}'::jsonb);

-- TEST: the run failed by the dependent step's condition
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'),
  'failed',
  'the gate step failed its condition'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the run is failed');

-- TEST: every queued or started message of the run is archived
select ok(
  pgflow_tests.message_exists('cond_fail2', pgflow_tests.task_msg_id(:'run_id', 'slow'), 'a'),
  'the queued message of another step is archived'
);
select ok(
  pgflow_tests.message_exists('cond_fail2', pgflow_tests.task_msg_id(:'run_id', 'busy'), 'a'),
  'the started message of another step is archived'
);
select is(pgflow_tests.queue_count('cond_fail2'), 0::bigint, 'the queue holds no message of the run');

select * from finish();
rollback;
