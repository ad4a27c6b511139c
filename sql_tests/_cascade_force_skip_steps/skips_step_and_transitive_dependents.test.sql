begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: root -> left, right -> last (diamond); root still started
select pgflow_tests.setup_flow('diamond');
select run_id from pgflow.start_flow('diamond', '{}'::jsonb) \gset

-- TEST: skipping root skips everything below it and returns the count
select is(
  pgflow._cascade_force_skip_steps(:'run_id', 'root', 'handler_failed'),
  4,
  'returns the number of skipped steps (root + 3 dependents)'
);
select results_eq(
  format($$select step_slug, status, skip_reason, skipped_at is not null, remaining_tasks
           from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'skipped'::text, 'dependency_skipped'::text, true, null::int),
           ('left', 'skipped', 'dependency_skipped', true, null),
           ('right', 'skipped', 'dependency_skipped', true, null),
           ('root', 'skipped', 'handler_failed', true, null)$$,
  'the trigger step gets the given reason, the transitive dependents dependency_skipped'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  0,
  'remaining_steps is decremented by the number skipped'
);
select is(
  (select status from pgflow.runs where run_id = :'run_id'),
  'started',
  'the run is not finalised here'
);

select * from finish();
rollback;
