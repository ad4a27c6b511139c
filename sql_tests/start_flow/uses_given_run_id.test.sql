begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');

-- TEST: the run gets the run_id passed by the caller
select is(
  (select run_id from pgflow.start_flow('sequential', '{}'::jsonb,
     run_id => '00000000-0000-0000-0000-0000000000aa'::uuid)),
  '00000000-0000-0000-0000-0000000000aa'::uuid,
  'start_flow returns the run with the given run_id'
);
select is(
  (select count(*)::int from pgflow.runs where run_id = '00000000-0000-0000-0000-0000000000aa'),
  1,
  'the run row is stored under the given run_id'
);
select is(
  (select count(*)::int from pgflow.step_states where run_id = '00000000-0000-0000-0000-0000000000aa'),
  3,
  'step_states are created under the given run_id'
);

select * from finish();
rollback;
