begin;
select plan(20);
select pgflow_tests.reset_db();

-- SETUP: chain a -> b -> c, max_attempts 1; a completes, b fails: the run fails, c is cancelled
select pgflow.create_flow('f', max_attempts => 1);
select pgflow.add_step('f', 'a');
select pgflow.add_step('f', 'b', array['a']);
select pgflow.add_step('f', 'c', array['b']);
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'f', 'x');
select run_id from pgflow.start_flow('f', '{"n": 1}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select pgflow.complete_task(:'run_id', 'a', 0, '{"from_a": 1}'::jsonb, 1);
select count(*) from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select pgflow.fail_task(:'run_id', 'b', 0, 'b broke', 1);
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('a'::text, 'completed'::text), ('b', 'failed'), ('c', 'cancelled')$$,
  'setup: the run failed at b, c was cancelled'
);
select message_id as a_msg from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'a' \gset
select completed_at as a_completed_at from pgflow.step_states where run_id = :'run_id' and step_slug = 'a' \gset

-- TEST: retry_run starts the run again
select results_eq(
  format($$select * from pgflow.retry_run(%L, 'alice', 'b is fixed')$$, :'run_id'),
  format($$values (%L::uuid, 'started'::text, true, null::text)$$, :'run_id'),
  'retry_run returns the run, started, changed, no detail'
);
select results_eq(
  format($$select status, failed_at, completed_at, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, null::timestamptz, null::timestamptz, 2)$$,
  'the run is started, failed_at cleared, remaining_steps 2 (b and c)'
);

-- TEST: a stays completed with its output, its task untouched
select results_eq(
  format($$select status, output, completed_at from pgflow.step_states where run_id = %L and step_slug = 'a'$$, :'run_id'),
  format($$values ('completed'::text, '{"from_a": 1}'::jsonb, %L::timestamptz)$$, :'a_completed_at'),
  'a keeps status completed, its output and completed_at'
);
select results_eq(
  format($$select status, attempts_count, message_id from pgflow.step_tasks where run_id = %L and step_slug = 'a'$$, :'run_id'),
  format($$values ('completed'::text, 1, %s::bigint)$$, :'a_msg'),
  'a still has its one completed task (no new task)'
);

-- TEST: b is started again with one new queued task; c is created again with no task
select results_eq(
  format($$select step_slug, status, remaining_deps, remaining_tasks, error_message, failed_at, cancelled_at
           from pgflow.step_states where run_id = %L and step_slug in ('b', 'c') order by step_slug$$, :'run_id'),
  $$values ('b'::text, 'started'::text, 0, 1, null::text, null::timestamptz, null::timestamptz),
           ('c', 'created', 1, null::int, null, null, null)$$,
  'b is started (1 task), c is created again waiting for b, error and timestamps cleared'
);
select results_eq(
  format($$select step_slug, task_index, status, attempts_count, attempt_offset, error_message from pgflow.step_tasks
           where run_id = %L and step_slug in ('b', 'c') order by step_slug, task_index$$, :'run_id'),
  $$values ('b'::text, 0, 'queued'::text, 1, 1, null::text)$$,
  'b has a single new queued task going on from attempt 1 (offset 1), no error; c has none'
);
select is(pgflow_tests.queue_count('f'), 1::bigint, 'one message in the queue: b''s new task');

-- TEST: a worker claims b: attempt 2 (max_attempts 1, but the budget counts from the offset),
-- input from a's output
select results_eq(
  $$select step_slug, task_index, attempts_count, input
    from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null)$$,
  $$values ('b'::text, 0, 2, '{"a": {"from_a": 1}}'::jsonb)$$,
  'only b is claimed, with attempts_count 2 and a''s output as input'
);
select is(
  (select attempts_count from pgflow.complete_task(:'run_id', 'b', 0, '{"from_b": 2}'::jsonb, 2)),
  2,
  'b''s attempt 2 is accepted'
);

-- TEST: c is started after b and gets b's output
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('a'::text, 'completed'::text), ('b', 'completed'), ('c', 'started')$$,
  'b completed, c started'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'remaining_steps drops to 1'
);
select results_eq(
  $$select step_slug, attempts_count, input
    from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null)$$,
  $$values ('c'::text, 1, '{"b": {"from_b": 2}}'::jsonb)$$,
  'c is claimed (attempt 1) with b''s output'
);
select pgflow.complete_task(:'run_id', 'c', 0, '{"from_c": 3}'::jsonb, 1);

-- TEST: the run completes
select results_eq(
  format($$select status, remaining_steps, output, failed_at from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"c": {"from_c": 3}}'::jsonb, null::timestamptz)$$,
  'the run is completed with c''s output, remaining_steps 0'
);
select results_eq(
  format($$select step_slug, count(*)::int from pgflow.step_tasks where run_id = %L group by step_slug order by step_slug$$, :'run_id'),
  $$values ('a'::text, 1), ('b', 1), ('c', 1)$$,
  'one task per step in the end: a was never run again, b''s failed task was replaced'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and status <> 'completed'),
  0,
  'every task is completed'
);
select is(pgflow_tests.queue_count('f'), 0::bigint, 'the queue is empty');

-- TEST: b's earlier failed attempt stays in the audit trail
select results_eq(
  format($$select event, details ->> 'error_message' from pgflow.run_events
           where run_id = %L and step_slug = 'b' and event = 'task:failed'$$, :'run_id'),
  $$values ('task:failed'::text, 'b broke'::text)$$,
  'the failed attempt is still recorded in run_events'
);

-- TEST: a run of status completed cannot be retried
select throws_ok(
  format($$select * from pgflow.retry_run(%L, 'alice', 'again')$$, :'run_id'),
  '55000',
  format('retry_run: run %s is completed', :'run_id'),
  'retrying the completed run raises 55000'
);
select is(
  (select status from pgflow.runs where run_id = :'run_id'),
  'completed',
  'and it stays completed'
);

select * from finish();
rollback;
