begin;
select plan(11);
select pgflow_tests.reset_db();

-- SETUP: approve (a root step that waits for "approved" and has a handler) -> after.
select pgflow.create_flow('hw', max_attempts => 1);
select pgflow.add_step('hw', 'approve');
select pgflow.add_wait('hw', 'approve', 'approved', timeout => 3600);
select pgflow.add_step('hw', 'after', array['approve']);
select run_id from pgflow.start_flow('hw', '{"order": 7}'::jsonb) \gset

-- TEST: the step waits: no task, no message, an open wait with its deadline
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'approve'),
  'waiting', 'approve is waiting'
);
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id'), 0, 'no task yet');
select is(pgflow_tests.queue_count('hw'), 0::bigint, 'no message yet');
select results_eq(
  format($$select resolved_at, outcome, deadline = waiting_since + interval '3600 seconds'
           from pgflow.wait_states where run_id = %L and step_slug = 'approve'$$, :'run_id'),
  $$values (null::timestamptz, null::text, true)$$,
  'its wait is open, deadline = waiting_since + timeout'
);

-- TEST: send_signal: the waiting step takes it at once, in the same call
select results_eq(
  format($$select status, taken_by_step, taken_at is not null, duplicate
           from pgflow.send_signal(%L, 'approved', '{"by": "alice"}')$$, :'run_id'),
  $$values ('taken'::text, 'approve'::text, true, false)$$,
  'send_signal returns the signal taken by approve'
);
select signal_id from pgflow.signals where run_id = :'run_id' \gset
select results_eq(
  format($$select status, started_at is not null, remaining_tasks from pgflow.step_states
           where run_id = %L and step_slug = 'approve'$$, :'run_id'),
  $$values ('started'::text, true, 1)$$,
  'approve is started with one task to do'
);
select results_eq(
  format($$select status from pgflow.step_tasks where run_id = %L and step_slug = 'approve'$$, :'run_id'),
  $$values ('queued'::text)$$,
  'its task is queued'
);
select ok(
  pgflow_tests.message_exists('hw', pgflow_tests.task_msg_id(:'run_id', 'approve')),
  'and its message is in the queue'
);

-- TEST: the handler reads the signal (ctx.signal) through get_step_signal
select results_eq(
  format($$select * from pgflow.get_step_signal(%L, 'approve')$$, :'run_id'),
  format($$select %s::bigint, 'approved'::text, '{"by": "alice"}'::jsonb, received_at, false
           from pgflow.signals where signal_id = %s$$, :'signal_id', :'signal_id'),
  'get_step_signal: the signal, its payload and received_at, timed_out false'
);

-- TEST: the task runs as a root step's does (flow_input = the run input); the run goes on
select results_eq(
  format($$select step_slug, input, flow_input from pgflow_tests.start_task(%L, 'approve')$$, :'run_id'),
  $$values ('approve'::text, '{}'::jsonb, '{"order": 7}'::jsonb)$$,
  'the task of approve starts as a root step''s: input {}, flow_input the run input'
);
select pgflow.complete_task(:'run_id', 'approve', 0, '"ok"'::jsonb);
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'after'),
  'started', 'after starts once approve completes'
);

select * from finish();
rollback;
