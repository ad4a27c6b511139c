begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: the step failed for good, the run with it
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'first', 0, 'original');

-- TEST: a second fail_task changes nothing
select lives_ok(
  format($$select * from pgflow.fail_task(%L, 'first', 0, 'duplicate')$$, :'run_id'),
  'a duplicate fail_task does not raise'
);
select results_eq(
  format($$select t.error_message, s.error_message from pgflow.step_tasks t
           join pgflow.step_states s using (run_id, step_slug)
           where t.run_id = %L and t.step_slug = 'first'$$, :'run_id'),
  $$values ('original'::text, 'original'::text)$$,
  'task and step keep the first error message'
);
select is(
  (select attempts_count from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  1,
  'attempts_count is unchanged'
);

select * from finish();
rollback;
