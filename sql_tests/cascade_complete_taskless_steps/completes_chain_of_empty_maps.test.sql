begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: producer -> m1 (map) -> m2 (map) -> reducer. Pretend producer completed with []
-- (as complete_task leaves it): m1 is ready with 0 tasks.
select pgflow.create_flow('chain');
select pgflow.add_step('chain', 'producer');
select pgflow.add_step('chain', 'm1', array['producer'], step_type => 'map');
select pgflow.add_step('chain', 'm2', array['m1'], step_type => 'map');
select pgflow.add_step('chain', 'reducer', array['m2']);
select run_id from pgflow.start_flow('chain', '{}'::jsonb) \gset
update pgflow.step_states
set status = 'completed', remaining_tasks = 0, completed_at = now(), output = '[]'
where run_id = :'run_id' and step_slug = 'producer';
update pgflow.step_states set remaining_deps = 0, initial_tasks = 0
where run_id = :'run_id' and step_slug = 'm1';
update pgflow.runs set remaining_steps = 3 where run_id = :'run_id';

-- TEST: both maps complete in one call; the count is returned
select is(
  pgflow.cascade_complete_taskless_steps(:'run_id'),
  2,
  'returns the number of steps completed (m1 and m2)'
);
select results_eq(
  format($$select step_slug, status, initial_tasks, remaining_tasks, remaining_deps, output
           from pgflow.step_states where run_id = %L and step_slug in ('m1', 'm2')
           order by step_slug$$, :'run_id'),
  $$values ('m1'::text, 'completed'::text, 0, 0, 0, '[]'::jsonb),
           ('m2', 'completed', 0, 0, 0, '[]'::jsonb)$$,
  'each empty map is completed with remaining_tasks 0 and output []; m2 inherits initial_tasks 0'
);
select ok(
  (select bool_and(started_at is not null and completed_at is not null and started_at = completed_at)
   from pgflow.step_states where run_id = :'run_id' and step_slug in ('m1', 'm2')),
  'completed taskless steps get started_at = completed_at'
);

-- TEST: the single step after the chain becomes ready but is not started here
select results_eq(
  format($$select status, remaining_deps, initial_tasks
           from pgflow.step_states where run_id = %L and step_slug = 'reducer'$$, :'run_id'),
  $$values ('created'::text, 0, 1)$$,
  'the dependent single step gets remaining_deps 0 and stays created with initial_tasks 1'
);

-- TEST: the run countdown drops by the number completed
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'remaining_steps is decremented by the number of completed steps'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug in ('m1', 'm2')),
  0,
  'no task is created for taskless steps'
);

select * from finish();
rollback;
