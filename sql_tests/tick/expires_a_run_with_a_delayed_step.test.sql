begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: root step late with start_delay 1 hour: its task is queued, its message hidden
select pgflow.create_flow('dl', max_attempts => 1);
select pgflow.add_step('dl', 'late', start_delay => 3600);
select run_id from pgflow.start_flow('dl', '{}'::jsonb, deadline => now() + interval '10 minutes') \gset
select ok(pgflow_tests.message_vt_seconds('dl', pgflow_tests.task_msg_id(:'run_id', 'late')) > 3500,
  'the delayed message is hidden for about an hour');
select pgflow_tests.pass_deadline(:'run_id');

-- TEST: the tick expires the run before the delay is over
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 1, 0, 0)$$, 'tick: expired_runs 1');
select is((select status from pgflow.runs where run_id = :'run_id'), 'expired', 'the run is expired');
select results_eq(format($$select t.status, ss.status from pgflow.step_tasks as t
                           join pgflow.step_states as ss using (run_id, step_slug) where t.run_id = %L$$, :'run_id'),
  $$values ('cancelled'::text, 'cancelled'::text)$$, 'the delayed task and its step are cancelled');

-- TEST: the hidden message is archived: it never reaches a worker
select ok(not pgflow_tests.message_exists('dl', pgflow_tests.task_msg_id(:'run_id', 'late'), 'q'), 'not in pgmq.q_dl');
select ok(pgflow_tests.message_exists('dl', pgflow_tests.task_msg_id(:'run_id', 'late'), 'a'), 'in pgmq.a_dl');

select * from finish();
rollback;
