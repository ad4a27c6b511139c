begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: sequential first -> second -> last, max_attempts 1: first completes, second fails,
-- the run fails and last is cancelled
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '"one"'::jsonb);
select pgflow_tests.start_and_fail_task(:'run_id', 'second', 0, 'second broke');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('first'::text, 'completed'::text), ('last', 'cancelled'), ('second', 'failed')$$,
  'setup: the run failed at second, last cancelled'
);
select max(id) as last_event from pgflow.run_events \gset

-- TEST: skipping the failed step starts the run again
select results_eq(
  format($$select * from pgflow.skip_step(%L, 'second', 'alice', 'skip it')$$, :'run_id'),
  format($$values (%L::uuid, 'started'::text, true, null::text)$$, :'run_id'),
  'skip_step returns the run, started again, changed'
);
select results_eq(
  format($$select status, skip_reason, failed_at, error_message from pgflow.step_states
           where run_id = %L and step_slug = 'second'$$, :'run_id'),
  $$values ('skipped'::text, 'skipped_by_operator'::text, null::timestamptz, 'second broke'::text)$$,
  'second is skipped by the operator (failed_at cleared, its error kept)'
);
select results_eq(
  format($$select status, failed_at, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, null::timestamptz, 1)$$,
  'the run is started, failed_at cleared, one step (last) to go'
);

-- TEST: the step cancelled by the failure is created again and, its parent skipped, starts
select results_eq(
  format($$select status, remaining_deps, cancelled_at from pgflow.step_states where run_id = %L and step_slug = 'last'$$, :'run_id'),
  $$values ('started'::text, 0, null::timestamptz)$$,
  'last is started (no pending parent: second is skipped)'
);
select results_eq(
  format($$select status, attempts_count from pgflow.step_tasks where run_id = %L and step_slug = 'last'$$, :'run_id'),
  $$values ('queued'::text, 0)$$,
  'last has a fresh queued task'
);

-- TEST: the events: step:skipped, step:reset of last, run:retried, by alice
select results_eq(
  format($$select step_slug, event, actor, reason from pgflow.run_events
           where run_id = %L and id > %s and event in ('step:skipped', 'step:reset', 'run:retried') order by id$$,
         :'run_id', :'last_event'),
  $$values ('second'::text, 'step:skipped'::text, 'alice'::text, 'skip it'::text),
           ('last', 'step:reset', 'alice', 'skip it'),
           (null, 'run:retried', 'alice', 'skip it')$$,
  'step:skipped, step:reset and run:retried are recorded with actor and reason'
);

-- TEST: the run can complete
select pgflow_tests.start_and_complete_task(:'run_id', 'last', 0, '"end"'::jsonb);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"last": "end"}'::jsonb)$$,
  'last completes and so does the run'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  1,
  'first was not run again'
);

select * from finish();
rollback;
