begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a running run with remaining steps
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: nothing happens while remaining_steps > 0
select pgflow.maybe_complete_run(:'run_id');
select results_eq(
  format($$select status, completed_at, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, null::timestamptz, null::jsonb)$$,
  'the run stays started without output'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  3,
  'remaining_steps is unchanged'
);

select * from finish();
rollback;
