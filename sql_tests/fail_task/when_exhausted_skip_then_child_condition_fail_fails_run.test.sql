begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: source (when_exhausted skip) -> check (requires {"source": {}}, when_unmet fail)
select pgflow.create_flow('skip_then_fail', max_attempts => 1);
select pgflow.add_step('skip_then_fail', 'source', when_exhausted => 'skip');
select pgflow.add_step('skip_then_fail', 'check', array['source'],
  required_input_pattern => '{"source": {}}', when_unmet => 'fail');
select run_id from pgflow.start_flow('skip_then_fail', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'source') as msg_id \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'source');

-- TEST: the child's condition sees {} (source skipped) and fails the run
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'check'),
  'failed',
  'the child with an unmet fail-mode condition is failed'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the run is failed');
select ok(pgflow_tests.message_exists('skip_then_fail', :msg_id::bigint, 'a'),
  'the failed task message is archived');

select * from finish();
rollback;
