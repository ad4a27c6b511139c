begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{"x": 1}'::jsonb) \gset

-- TEST: one run row for the flow, started, with the input and a step countdown
select is(
  (select count(*)::int from pgflow.runs),
  1,
  'start_flow creates exactly one run'
);
select is(
  (select flow_slug from pgflow.runs where run_id = :'run_id'),
  'sequential',
  'the run belongs to the started flow'
);
select is(
  (select status from pgflow.runs where run_id = :'run_id'),
  'started',
  'the run is in status started'
);
select is(
  (select input from pgflow.runs where run_id = :'run_id'),
  '{"x": 1}'::jsonb,
  'the run stores the input as given'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  3,
  'remaining_steps equals the number of steps of the flow'
);
select ok(
  (select output is null and completed_at is null and failed_at is null
   from pgflow.runs where run_id = :'run_id'),
  'a fresh run has no output, completed_at or failed_at'
);

select * from finish();
rollback;
