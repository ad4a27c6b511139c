begin;
select plan(11);
select pgflow_tests.reset_db();

-- SETUP: a started task of a sequential run, under a 1 kB limit
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'first');
select set_config('pgflow.max_payload_bytes', '1kB', true);
select pgflow_tests.message_vt(
  'sequential', pgflow_tests.task_msg_id(:'run', 'first')) as vt_before \gset

-- TEST: an output over the limit raises, naming the task, both sizes and the setting
select throws_ok(
  format($$select * from pgflow.complete_task(%L, 'first', 0, to_jsonb(repeat('x', 2000)))$$, :'run'),
  '54000',
  format('Output of task first[0] of run %s is 2012 bytes, over the limit of 1024 bytes (setting pgflow.max_payload_bytes)', :'run'),
  'complete_task raises program_limit_exceeded'
);

-- TEST: nothing changed: task, step, run, message
select is((select status from pgflow.step_tasks where run_id = :'run' and step_slug = 'first'), 'started',
  'the task is still started');
select is((select output from pgflow.step_tasks where run_id = :'run' and step_slug = 'first'), null,
  'no output was stored');
select is((select status from pgflow.step_states where run_id = :'run' and step_slug = 'first'), 'started',
  'the step is still started');
select is((select remaining_steps from pgflow.runs where run_id = :'run'), 3, 'remaining_steps is unchanged');
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run'), 1, 'no dependent task was queued');
select is(pgflow_tests.message_vt('sequential', pgflow_tests.task_msg_id(:'run', 'first')), :'vt_before'::timestamptz,
  'the message is still in the queue with its visibility timeout');

-- TEST: the worker can then report the task as failed (what pgflow-worker does)
select is(
  (select status from pgflow.fail_task(:'run', 'first', 0, 'ProgramLimitExceeded: output too large')),
  'failed', 'fail_task closes the task (max_attempts 1)');
select is((select status from pgflow.runs where run_id = :'run'), 'failed', 'and fails the run');

-- TEST: a late report with an oversized output is still a no-op, not an error
select is(
  (select status from pgflow.complete_task(:'run', 'first', 0, to_jsonb(repeat('x', 2000)))),
  'failed', 'a late complete_task returns the row unchanged');

-- TEST: an output of exactly the limit is accepted
select pgflow_tests.setup_flow('root_map');
select run_id as map_run from pgflow.start_flow('root_map', '[1]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'map_run', 'items');
select is(
  (select status from pgflow.complete_task(:'map_run', 'items', 0, to_jsonb(repeat('x', 1012)))),
  'completed', 'an output of exactly 1024 bytes completes the task');

select * from finish();
rollback;
