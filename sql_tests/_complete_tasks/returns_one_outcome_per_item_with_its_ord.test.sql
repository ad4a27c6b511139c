begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last; first's task started
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');

-- TEST: one row per item, carrying the caller's ords
select results_eq(
  format($$select ord, outcome, reason, detail from pgflow._complete_tasks(
      array[7, 3, 5], array[%1$L, %1$L, '00000000-0000-0000-0000-000000000000']::uuid[],
      array['first', 'second', 'first'], array[0, 0, 0], array['{"n": 1}', '2', '3']::jsonb[], null)$$, :'run_id'),
  $$values (7, 'completed'::text, null::text, null::text), (3, 'ignored', 'unknown_task', null),
           (5, 'ignored', 'unknown_task', null)$$,
  'completed for the started task, ignored/unknown_task for tasks that do not exist'
);

-- TEST: the completed item went all the way: task, step, dependents
select results_eq(
  format($$select status, output from pgflow.step_tasks where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('completed'::text, '{"n": 1}'::jsonb)$$,
  'the task is completed with its output'
);
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'second'),
  'started',
  'the dependent step is started'
);

-- TEST: without ords, ord is the item's position; status is the task's status now
select results_eq(
  format($$select ord, status, outcome, reason from pgflow._complete_tasks(
      null, array[%1$L, '00000000-0000-0000-0000-000000000000']::uuid[],
      array['first', 'first'], array[0, 0], array['4', '5']::jsonb[], null)$$, :'run_id'),
  $$values (1, 'completed'::text, 'ignored'::text, 'step_not_started'::text), (2, null, 'ignored', 'unknown_task')$$,
  'ords NULL: positions; a known task''s status, NULL for an unknown one'
);

select * from finish();
rollback;
