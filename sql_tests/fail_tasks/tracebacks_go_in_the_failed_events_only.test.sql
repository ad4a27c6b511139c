begin;
select plan(15);
select pgflow_tests.reset_db();

-- SETUP: run a of a retrying root map of four tasks (0, 1, 2 started, 3 still queued);
-- run b of a root map that fails at its first exhausted task (two tasks started); run c
-- of a one-attempt flow (first started); run d whose run is marked failed while its task
-- is started (the close of a started task of a failed run)
select pgflow.create_flow('tb_retry', max_attempts => 2, base_delay => 1);
select pgflow.add_step('tb_retry', 'items', step_type => 'map');
select run_id as run_a from pgflow.start_flow('tb_retry', '[1, 2, 3, 4]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_a', 'items', 0);
select count(*) from pgflow_tests.start_task(:'run_a', 'items', 1);
select count(*) from pgflow_tests.start_task(:'run_a', 'items', 2);
select pgflow_tests.setup_flow('root_map');
select run_id as run_b from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_b', 'items', 0);
select count(*) from pgflow_tests.start_task(:'run_b', 'items', 1);
select pgflow_tests.setup_flow('sequential');
select run_id as run_c from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_c', 'first');
select run_id as run_d from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_d', 'first');
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'run_d';

-- TEST: four reports in one call: a traceback, a NULL one, a 5 MB one, and one for a task
-- that is not started
create temp table outcomes_a as
select * from pgflow.fail_tasks(
  array[:'run_a', :'run_a', :'run_a', :'run_a']::uuid[], array['items', 'items', 'items', 'items'],
  array[0, 1, 2, 3], array['ValueError: zero', 'ValueError: one', 'ValueError: two', 'ValueError: three'],
  array[1, 1, 1, null],
  tracebacks => array[E'Traceback (most recent call last):\n  File "h.py", line 3, in charge\nValueError: zero',
                      null,
                      'HEAD' || repeat('x', 5 * 1024 * 1024) || 'TAIL',
                      'never stored']);
select results_eq(
  $$select task_index, status, outcome, reason from outcomes_a order by task_index$$,
  $$values (0, 'queued'::text, 'retried'::text, null::text), (1, 'queued', 'retried', null),
           (2, 'queued', 'retried', null), (3, 'queued', 'ignored', 'task_not_started')$$,
  'the tracebacks change no outcome'
);
select is(
  (select details from pgflow.run_events
   where run_id = :'run_a' and event = 'task:failed' and task_index = 0),
  jsonb_build_object('attempt', 1, 'error_message', 'ValueError: zero', 'retry', true,
    'traceback', E'Traceback (most recent call last):\n  File "h.py", line 3, in charge\nValueError: zero'),
  'the retried attempt''s event holds its traceback next to the short error'
);
select is(
  (select details from pgflow.run_events
   where run_id = :'run_a' and event = 'task:failed' and task_index = 1),
  '{"attempt": 1, "error_message": "ValueError: one", "retry": true}'::jsonb,
  'a NULL traceback adds no key'
);
select is(
  (select details ->> 'traceback' from pgflow.run_events
   where run_id = :'run_a' and event = 'task:failed' and task_index = 2),
  'HEAD' || repeat('x', 8188) || E'\n[... ' || (5 * 1024 * 1024 + 8 - 16384)::text
    || E' characters cut ...]\n' || repeat('x', 8188) || 'TAIL',
  'a 5 MB traceback is stored as its first and last 8192 characters'
);
select is(
  (select count(*)::int from pgflow.run_events where run_id = :'run_a' and task_index = 3),
  0, 'the ignored report recorded nothing'
);
select results_eq(
  format($$select task_index, error_message from pgflow.step_tasks where run_id = %L
           order by task_index$$, :'run_a'),
  $$values (0, 'ValueError: zero'::text), (1, 'ValueError: one'), (2, 'ValueError: two'),
           (3, null)$$,
  'the tasks keep the short error messages'
);

-- TEST: an exhausted attempt that fails the run, then a report the failure made late
create temp table outcomes_b as
select * from pgflow.fail_tasks(
  array[:'run_b', :'run_b']::uuid[], array['items', 'items'], array[0, 1],
  array['CardDeclined: no funds', 'ValueError: late'], array[1, 1],
  tracebacks => array['tb of task 0', 'tb of task 1']);
select results_eq(
  $$select task_index, status, outcome, reason from outcomes_b order by task_index$$,
  $$values (0, 'failed'::text, 'failed'::text, 'exhausted'::text),
           (1, 'cancelled', 'ignored', 'run_failed')$$,
  'the first report exhausts the task and fails the run; the second is ignored'
);
select results_eq(
  format($$select event, task_index, details from pgflow.run_events where run_id = %L
           and event in ('task:failed', 'step:failed', 'run:failed') order by id$$, :'run_b'),
  $$values ('task:failed'::text, 0,
            '{"attempt": 1, "error_message": "CardDeclined: no funds", "retry": false, "traceback": "tb of task 0"}'::jsonb),
           ('step:failed', null, '{"error_message": "CardDeclined: no funds"}'),
           ('run:failed', null, '{"error_message": "CardDeclined: no funds"}')$$,
  'only the exhausted attempt''s event holds a traceback; the late report stored none'
);
select is(
  (select error_message from pgflow.step_states where run_id = :'run_b' and step_slug = 'items'),
  'CardDeclined: no funds', 'the failed step keeps the short error message'
);

-- TEST: tracebacks omitted (upstream's arguments): the event has no traceback
select results_eq(
  format($$select outcome from pgflow.fail_tasks(array[%L]::uuid[], array['first'], array[0],
           array['ValueError: x'])$$, :'run_c'),
  $$values ('failed'::text)$$,
  'a report without tracebacks is applied'
);
select is(
  (select details from pgflow.run_events where run_id = :'run_c' and event = 'task:failed'),
  '{"attempt": 1, "error_message": "ValueError: x", "retry": false}'::jsonb,
  'no tracebacks argument: no traceback key'
);

-- TEST: a started task of a failed run is closed with its traceback in the event
select results_eq(
  format($$select status, outcome, reason from pgflow.fail_tasks(array[%L]::uuid[], array['first'],
           array[0], array['ValueError: d'], tracebacks => array['tb of d'])$$, :'run_d'),
  $$values ('failed'::text, 'failed'::text, 'run_failed'::text)$$,
  'the started task of the failed run is closed'
);
select is(
  (select details from pgflow.run_events where run_id = :'run_d' and event = 'task:failed'),
  '{"attempt": 1, "error_message": "ValueError: d", "retry": false, "traceback": "tb of d"}'::jsonb,
  'its event holds the traceback'
);

-- TEST: tracebacks of another length, or not one-dimensional from 1, raise
select throws_ok(
  format($$select * from pgflow.fail_tasks(array[%L]::uuid[], array['first'], array[0], array['x'],
           tracebacks => array['a', 'b'])$$, :'run_c'),
  '22023',
  'fail_tasks: tracebacks must be NULL or a one-dimensional array of 1 elements starting at index 1 (got 2)',
  'tracebacks of another length raise invalid_parameter_value'
);
select throws_ok(
  format($$select * from pgflow.fail_tasks(array[%L]::uuid[], array['first'], array[0], array['x'],
           tracebacks => '[0:0]={a}'::text[])$$, :'run_c'),
  '22023',
  'fail_tasks: tracebacks must be NULL or a one-dimensional array of 1 elements starting at index 1 (got 1)',
  'tracebacks not starting at index 1 raise invalid_parameter_value'
);

select * from finish();
rollback;
