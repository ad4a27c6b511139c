begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: 2 attempts; the first fails
select pgflow.create_flow('second_chance', max_attempts => 2);
select pgflow.add_step('second_chance', 'work');
select run_id from pgflow.start_flow('second_chance', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'work', 0, 'flaky');

-- TEST: the retried message is delivered again and the second attempt completes
select pgflow_tests.make_visible('second_chance');
select is(
  (select count(*)::int from pgflow_tests.read_and_start('second_chance')),
  1,
  'the retried task is read and started again'
);
select pgflow.complete_task(:'run_id', 'work', 0, '"ok"'::jsonb);
select results_eq(
  format($$select status, attempts_count, output from pgflow.step_tasks where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 2, '"ok"'::jsonb)$$,
  'the task completes on attempt 2'
);
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, '{"work": "ok"}'::jsonb)$$,
  'the run completes'
);

select * from finish();
rollback;
