begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: sequential run; first completes, second's task is queued, then the run is failed
-- without a failed step (_fail_run): second (started) and last (created) are cancelled
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '"one"'::jsonb);
select pgflow._fail_run(:'run_id', 'operator stop');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('first'::text, 'completed'::text), ('last', 'cancelled'), ('second', 'cancelled')$$,
  'setup: first completed, second and last cancelled, run failed'
);
select max(id) as last_event from pgflow.run_events \gset

-- TEST: with no failed step, _reopen_run(false) reopens the run
select is(pgflow._reopen_run(:'run_id', false), true, '_reopen_run returns true');
select results_eq(
  format($$select status, failed_at, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, null::timestamptz, 2)$$,
  'the run is started, failed_at cleared, remaining_steps still 2'
);

-- TEST: the cancelled steps are created again (cancelled_at cleared); the ready one starts
select results_eq(
  format($$select step_slug, status, cancelled_at, remaining_deps, remaining_tasks from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('first'::text, 'completed'::text, null::timestamptz, 0, 0),
           ('last', 'created', null, 1, null::int),
           ('second', 'started', null, 0, 1)$$,
  'second is started again, last is created, waiting for second; first untouched'
);
select results_eq(
  format($$select step_slug, status, attempts_count, cancelled_at from pgflow.step_tasks
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('first'::text, 'completed'::text, 1, null::timestamptz), ('second', 'queued', 0, null)$$,
  'second''s cancelled task is replaced by a fresh queued one'
);
select is(pgflow_tests.visible_count('sequential'), 1::bigint, 'its message is in the queue');

-- TEST: the events: step:reset from cancelled, run:retried (system, as no actor is set)
select results_eq(
  format($$select step_slug, event, actor, details from pgflow.run_events
           where run_id = %L and id > %s order by min(id) over (partition by event), step_slug$$,
         :'run_id', :'last_event'),
  $$values ('last'::text, 'step:reset'::text, 'system'::text, '{"from": "cancelled"}'::jsonb),
           ('second', 'step:reset', 'system', '{"from": "cancelled"}'),
           (null, 'run:retried', 'system', null),
           ('second', 'step:started', 'system', null)$$,
  'step:reset (from cancelled) for last and second, run:retried, step:started'
);

-- TEST: the run goes on to completion
select pgflow_tests.start_and_complete_task(:'run_id', 'second', 0, '"two"'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'last', 0, '"three"'::jsonb);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"last": "three"}'::jsonb)$$,
  'the run completes'
);

-- TEST: reset_failed_steps true also resets a failed step
select run_id as r2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'r2', 'first');
select pgflow._reopen_run(:'r2', true);
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'r2'),
  $$values ('first'::text, 'started'::text), ('last', 'created'), ('second', 'created')$$,
  'with reset_failed_steps the failed step is created again and started'
);

select * from finish();
rollback;
