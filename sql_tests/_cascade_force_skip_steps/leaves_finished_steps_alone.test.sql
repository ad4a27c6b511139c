begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: diamond with root completed; left and right started
select pgflow_tests.setup_flow('diamond');
select run_id from pgflow.start_flow('diamond', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'root', 0, '"r"'::jsonb);

-- TEST: skipping left skips left and last only
select is(
  pgflow._cascade_force_skip_steps(:'run_id', 'left', 'condition_unmet'),
  2,
  'only left and its dependent last are skipped'
);
select results_eq(
  format($$select step_slug, status, skip_reason from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'skipped'::text, 'dependency_skipped'::text),
           ('left', 'skipped', 'condition_unmet'),
           ('right', 'started', null),
           ('root', 'completed', null)$$,
  'completed steps and siblings outside the subtree keep their status'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'remaining_steps: 4 - 1 completed - 2 skipped'
);
select is(
  (select remaining_deps from pgflow.step_states where run_id = :'run_id' and step_slug = 'last'),
  2,
  'remaining_deps of skipped dependents is not touched'
);

select * from finish();
rollback;
