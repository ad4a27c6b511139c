begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: r1 of a one-step flow, r2 of a 3-step chain; each has its first step completed by
-- hand and not yet counted off
select pgflow.create_flow('one_step');
select pgflow.add_step('one_step', 'only');
select pgflow_tests.setup_flow('sequential');
select run_id as r1 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.mark_step_completed(:'r1', 'only', '1');
select pgflow_tests.mark_step_completed(:'r2', 'first', '2');

-- TEST: count_off drops each run's remaining_steps by its finished steps; the run left with
-- none completes in the same call, the other stays started; the result names the flows of
-- the runs still going
select is(
  pgflow._complete_runs(array[:'r1', :'r2']::uuid[], count_off => true),
  array['sequential'],
  'returns the flows of the runs counted off that did not complete'
);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id in (%L, %L)
           order by run_id = %L desc$$, :'r1', :'r2', :'r1'),
  $$values ('completed'::text, 0, '{"only": 1}'::jsonb), ('started', 2, null)$$,
  'the one-step run completed with its output, the chain lost one step'
);
select is(
  (select array_agg(e.event order by e.event) from pgflow.run_events as e
   where e.run_id in (:'r1', :'r2') and e.event = 'run:completed'),
  array['run:completed'],
  'run:completed is recorded for the completed run only'
);

-- TEST: the completed run's row was written once by the call (one row version: the
-- UPDATE that counted the step off also completed it)
select is(
  (select n_tup_upd from pg_stat_xact_user_tables where relid = 'pgflow.runs'::regclass),
  2::bigint,
  'one row update per run'
);

-- TEST: a run appears once per finished step: two steps of the chain counted off at once
select pgflow_tests.mark_step_completed(:'r2', 'second', '3');
select pgflow_tests.mark_step_completed(:'r2', 'last', '4');
select is(pgflow._complete_runs(array[:'r2', :'r2']::uuid[], count_off => true), null::text[],
  'NULL: no run is still going');
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'r2'),
  $$values ('completed'::text, 0, '{"last": 4}'::jsonb)$$,
  'the chain completed with its leaf output'
);

-- TEST: complete false counts off only: a run left with no step stays started
select run_id as r3 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select pgflow_tests.mark_step_completed(:'r3', 'only', '5');
select is(pgflow._complete_runs(array[:'r3']::uuid[], count_off => true, complete => false),
  array['one_step'], 'returns the flow of the run counted off');
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'r3'),
  $$values ('started'::text, 0)$$,
  'counted off, not completed'
);

-- TEST: counting off more steps than a run has left raises (runs_remaining_steps_check),
-- and the call writes nothing
select throws_ok(
  format($$select pgflow._complete_runs(array[%L]::uuid[], count_off => true)$$, :'r2'),
  '23514', null, 'a step counted off twice raises check_violation'
);

select * from finish();
rollback;
