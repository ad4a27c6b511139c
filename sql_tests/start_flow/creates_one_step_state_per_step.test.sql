begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: root -> left, right -> last
select pgflow_tests.setup_flow('diamond');
select run_id from pgflow.start_flow('diamond', '{}'::jsonb) \gset

-- TEST: one step_state per step
select is(
  (select count(*)::int from pgflow.step_states where run_id = :'run_id'),
  4,
  'one step_state row per step of the flow'
);

-- TEST: remaining_deps copies deps_count
select results_eq(
  format($$select step_slug, remaining_deps from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('last'::text, 2), ('left', 1), ('right', 1), ('root', 0)$$,
  'remaining_deps equals the number of dependencies of each step'
);

-- TEST: single steps have exactly one task
select is(
  (select array_agg(distinct initial_tasks) from pgflow.step_states where run_id = :'run_id'),
  array[1],
  'initial_tasks is 1 for every single step'
);

-- TEST: steps with dependencies wait in status created
select results_eq(
  format($$select step_slug, status from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'created'::text), ('left', 'created'), ('right', 'created'), ('root', 'started')$$,
  'only the root step is started; the others stay created'
);

select * from finish();
rollback;
