begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: 3 attempts allowed; root_b is started, then the run fails (by hand)
select pgflow.create_flow('failed_run', max_attempts => 3);
select pgflow.add_step('failed_run', 'root_a');
select pgflow.add_step('failed_run', 'root_b');
select run_id from pgflow.start_flow('failed_run', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'root_b') as msg_id \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'root_b');
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'run_id';

-- TEST: the started task is failed without retry
select results_eq(
  format($$select status, attempts_count, error_message, failed_at is not null
           from pgflow.fail_task(%L, 'root_b', 0, 'after run failure')$$, :'run_id'),
  $$values ('failed'::text, 1, 'after run failure'::text, true)$$,
  'the started task is marked failed (no retry although attempts are left)'
);
select ok(pgflow_tests.message_exists('failed_run', :msg_id::bigint, 'a'), 'its message is archived');

-- TEST: step and run are not touched further
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'root_b'),
  'started',
  'the step state is not modified'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  2,
  'the run counters are not modified'
);

select * from finish();
rollback;
