begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: root -> left, right -> last
select pgflow_tests.setup_flow('diamond');
select run_id from pgflow.start_flow('diamond', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'root', 0, '"r"'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'left', 0, '"l"'::jsonb);

-- TEST: last waits for right
select results_eq(
  format($$select status, remaining_deps from pgflow.step_states
           where run_id = %L and step_slug = 'last'$$, :'run_id'),
  $$values ('created'::text, 1)$$,
  'a step with two parents waits after the first completes'
);

-- TEST: and starts after the second
select pgflow_tests.start_and_complete_task(:'run_id', 'right', 0, '"r2"'::jsonb);
select is(
  (select input from pgflow_tests.start_task(:'run_id', 'last')),
  '{"left": "l", "right": "r2"}'::jsonb,
  'after both parents complete it is started with both outputs'
);

select * from finish();
rollback;
