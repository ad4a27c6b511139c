begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a started task at attempt 1
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');

-- TEST: attempts 0, -1 and 2 never happened: ignored (unknown_attempt), nothing written
select results_eq(
  format($$select outcome, reason from pgflow.complete_tasks(array[%1$L, %1$L, %1$L]::uuid[],
      array['first', 'first', 'first'], array[0, 0, 0], array['1', '2', '3']::jsonb[], array[0, -1, 2])$$,
    :'run_id'),
  $$values ('ignored'::text, 'unknown_attempt'::text), ('ignored', 'unknown_attempt'), ('ignored', 'unknown_attempt')$$,
  'each report of an attempt the task never had is ignored'
);
select results_eq(
  format($$select status, output, attempts_count from pgflow.step_tasks where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('started'::text, null::jsonb, 1)$$,
  'the task is untouched'
);

select * from finish();
rollback;
