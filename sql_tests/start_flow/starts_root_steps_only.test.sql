begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: root_a, root_b -> last
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{"x": 1}'::jsonb) \gset

-- TEST: both roots are started with one remaining task
select results_eq(
  format($$select step_slug, status, remaining_tasks, started_at is not null
           from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'created'::text, null::int, false),
           ('root_a', 'started', 1, true),
           ('root_b', 'started', 1, true)$$,
  'root steps are started with remaining_tasks = initial_tasks; the dependent step stays created'
);

-- TEST: one queued task per root step, none for the dependent step
select results_eq(
  format($$select step_slug, task_index, status, attempts_count
           from pgflow.step_tasks where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('root_a'::text, 0, 'queued'::text, 0), ('root_b', 0, 'queued', 0)$$,
  'each root step gets one queued task with index 0 and no attempts'
);

-- TEST: one message per task
select is(
  pgflow_tests.queue_count('two_roots'),
  2::bigint,
  'one message per task is sent to the flow queue'
);

-- TEST: every task points at its message
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and message_id is not null),
  2,
  'every task has a message_id'
);

-- TEST: the run is still running
select is(
  (select status from pgflow.runs where run_id = :'run_id'),
  'started',
  'the run stays started'
);

select * from finish();
rollback;
