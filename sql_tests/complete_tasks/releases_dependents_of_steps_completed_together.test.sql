begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: two_roots (root_a, root_b -> last); both roots started
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('two_roots', 30, 10);

-- TEST: both parents completed in one call release the child once per parent
select results_eq(
  format($$select step_slug, status from pgflow.complete_tasks(
      array[%L, %L]::uuid[], array['root_b', 'root_a'], array[0, 0], array['"b"', '"a"']::jsonb[])$$,
    :'run_id', :'run_id'),
  $$values ('root_b'::text, 'completed'::text), ('root_a', 'completed')$$,
  'both tasks complete'
);
select results_eq(
  format($$select status, remaining_deps from pgflow.step_states where run_id = %L and step_slug = 'last'$$, :'run_id'),
  $$values ('started'::text, 0)$$,
  'the child loses both pending parents and starts'
);
select is((select remaining_steps from pgflow.runs where run_id = :'run_id'), 1,
  'remaining_steps drops by two');
select is(
  (select input from pgflow_tests.read_and_start('two_roots', 30, 10)),
  '{"root_a": "a", "root_b": "b"}'::jsonb,
  'the child''s task is queued with both parent outputs as input'
);
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'last'), 1,
  'exactly one task is created for the child');

select * from finish();
rollback;
