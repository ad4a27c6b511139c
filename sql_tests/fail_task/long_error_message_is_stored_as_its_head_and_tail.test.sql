begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last, 1 attempt; the handler fails with a 5 MB message
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select 'KeyError: head ' || repeat('x', 5000000) || ' tail of the traceback' as long_error \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'first', 0, :'long_error');

-- TEST: the task and the step store the bounded text, not 5 MB twice
select is(
  (select error_message from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  pgflow._bounded_error_text(:'long_error'),
  'the task stores the head and the tail of the message'
);
select is(
  (select error_message from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  pgflow._bounded_error_text(:'long_error'),
  'the step stores the same bounded text'
);
select cmp_ok(
  (select length(error_message) from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  '<', 16500,
  'the stored text is about 16384 characters'
);
select ok(
  (select error_message like 'KeyError: head %' and error_message like '% tail of the traceback'
   from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  'it starts with the exception type and ends with the tail'
);

-- TEST: get_run_with_states returns the bounded text
select is(
  (select s ->> 'error_message'
   from jsonb_array_elements(pgflow.get_run_with_states(:'run_id') -> 'steps') as s
   where s ->> 'step_slug' = 'first'),
  pgflow._bounded_error_text(:'long_error'),
  'get_run_with_states carries the bounded text'
);

select * from finish();
rollback;
