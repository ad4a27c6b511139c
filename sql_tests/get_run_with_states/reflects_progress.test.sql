begin;
select plan(3);

-- SETUP: the first step of the sequence completes
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow.start_flow('sequential', '{}', 'aaaaaaaa-0000-0000-0000-000000000001');
select pgflow_tests.poll_and_complete('sequential', '{"done": 1}');

-- TEST: the current state is returned
select is(
  (select s -> 'status' from jsonb_array_elements(pgflow.get_run_with_states('aaaaaaaa-0000-0000-0000-000000000001') -> 'steps') as s
   where s ->> 'step_slug' = 'first'),
  '"completed"'::jsonb,
  'the completed step is reported as completed');
select is(
  (select s -> 'output' from jsonb_array_elements(pgflow.get_run_with_states('aaaaaaaa-0000-0000-0000-000000000001') -> 'steps') as s
   where s ->> 'step_slug' = 'first'),
  '{"done": 1}'::jsonb,
  'its output is included');
select is(pgflow.get_run_with_states('aaaaaaaa-0000-0000-0000-000000000001') #> '{run,remaining_steps}', '2'::jsonb,
  'run.remaining_steps reflects the completion');

select * from finish();
rollback;
