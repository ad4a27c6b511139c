begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: root_a, root_b -> last; root_a completed by hand
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select pgflow_tests.mark_step_completed(:'run_id', 'root_a', '"a"');
select pgflow._release_dependents(array[:'run_id']::uuid[], array['root_a']);

-- TEST: one finished parent
select is((select remaining_steps from pgflow.runs where run_id = :'run_id'), 2, 'the run loses the finished step (3 -> 2)');
select is(
  (select remaining_deps from pgflow.step_states where run_id = :'run_id' and step_slug = 'last'),
  1,
  'the dependent loses one pending parent (2 -> 1)'
);

-- TEST: the second parent
select pgflow_tests.mark_step_completed(:'run_id', 'root_b', '"b"');
select pgflow._release_dependents(array[:'run_id']::uuid[], array['root_b']);
select results_eq(
  format($$select (select remaining_steps from pgflow.runs where run_id = %1$L), remaining_deps, status
           from pgflow.step_states where run_id = %1$L and step_slug = 'last'$$, :'run_id'),
  $$values (1, 0, 'created'::text)$$,
  'remaining_steps 1, the dependent has no pending parent and stays created'
);

-- TEST: it starts and completes nothing
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'last'),
  0,
  'no task is created for the released dependent'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'started', 'the run stays started');

select * from finish();
rollback;
