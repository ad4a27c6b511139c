begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: two runs of root_a, root_b -> last; three finished steps released in one call
select pgflow_tests.setup_flow('two_roots');
select run_id as r1 from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select pgflow_tests.mark_step_completed(:'r1', 'root_a', '1');
select pgflow_tests.mark_step_completed(:'r1', 'root_b', '2');
select pgflow_tests.mark_step_completed(:'r2', 'root_b', '3');
select pgflow._release_dependents(array[:'r1', :'r2', :'r1']::uuid[], array['root_a', 'root_b', 'root_b']);

-- TEST: each run loses its own finished steps
select results_eq(
  format($$select run_id = %L, remaining_steps from pgflow.runs order by run_id = %L desc$$, :'r1', :'r1'),
  $$values (true, 1), (false, 2)$$,
  'run 1 loses two steps, run 2 one'
);

-- TEST: each dependent loses one pending parent per finished parent
select results_eq(
  format($$select run_id = %L, remaining_deps from pgflow.step_states
           where step_slug = 'last' order by run_id = %L desc$$, :'r1', :'r1'),
  $$values (true, 0), (false, 1)$$,
  'last has 0 pending parents in run 1, 1 in run 2'
);

-- TEST: NULL and empty arrays change nothing
select pgflow._release_dependents(null, null);
select pgflow._release_dependents('{}', '{}');
select is((select sum(remaining_steps)::int from pgflow.runs), 3, 'NULL and empty arrays leave remaining_steps');
select is(
  (select sum(remaining_deps)::int from pgflow.step_states where step_slug = 'last'),
  1,
  'NULL and empty arrays leave remaining_deps'
);

select * from finish();
rollback;
