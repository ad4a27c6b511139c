begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: three runs of a one-step flow; the step finished by hand in runs 1 and 2
select pgflow.create_flow('one_step');
select pgflow.add_step('one_step', 'only');
select run_id as r1 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select run_id as r3 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select pgflow_tests.finish_step_keep_run(:'r1', 'only', '1');
select pgflow_tests.finish_step_keep_run(:'r2', 'only', '{"n": 2}');
select pgflow._complete_runs(array[:'r1', :'r2', :'r3']::uuid[]);

-- TEST: both finished runs complete in one call, each with its leaf output
select results_eq(
  format($$select status, output, completed_at is not null from pgflow.runs where run_id in (%L, %L)
           order by run_id = %L desc$$, :'r1', :'r2', :'r1'),
  $$values ('completed'::text, '{"only": 1}'::jsonb, true), ('completed', '{"only": {"n": 2}}'::jsonb, true)$$,
  'runs with remaining_steps 0 are completed with their leaf outputs'
);

-- TEST: a run with steps left is untouched
select results_eq(
  format($$select status, output, completed_at from pgflow.runs where run_id = %L$$, :'r3'),
  $$values ('started'::text, null::jsonb, null::timestamptz)$$,
  'a run with remaining_steps > 0 stays started'
);

-- TEST: a run without a completed leaf completes with a NULL output
select run_id as r4 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select pgflow_tests.mark_step_skipped(:'r4', 'only');
update pgflow.runs set remaining_steps = 0 where run_id = :'r4';
select pgflow._complete_runs(array[:'r4']::uuid[]);
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'r4'),
  $$values ('completed'::text, null::jsonb)$$,
  'a run whose only leaf was skipped completes with output NULL'
);

-- TEST: a failed run with nothing left is never completed
select run_id as r5 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select pgflow_tests.finish_step_keep_run(:'r5', 'only', '5');
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'r5';
select pgflow._complete_runs(array[:'r5']::uuid[]);
select results_eq(
  format($$select status, completed_at, output from pgflow.runs where run_id = %L$$, :'r5'),
  $$values ('failed'::text, null::timestamptz, null::jsonb)$$,
  'a failed run with remaining_steps 0 stays failed'
);

select * from finish();
rollback;
