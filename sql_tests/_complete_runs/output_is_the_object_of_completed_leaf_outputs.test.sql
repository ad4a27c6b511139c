begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: root -> a, root -> b (if root.go, else skipped), root -> c; three runs
select pgflow.create_flow('forked', max_attempts => 1);
select pgflow.add_step('forked', 'root');
select pgflow.add_step('forked', 'a', array['root']);
select pgflow.add_step('forked', 'b', array['root'], required_input_pattern => '{"root": {"go": true}}');
select pgflow.add_step('forked', 'c', array['root']);
select run_id as r1 from pgflow.start_flow('forked', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('forked', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'r1', 'root', 0, '{"go": true}');
select pgflow_tests.start_and_complete_task(:'r1', 'a', 0, '1');
select pgflow_tests.start_and_complete_task(:'r1', 'b', 0, '[false, null]');
select pgflow_tests.start_and_complete_task(:'r2', 'root', 0, '{"go": false}');
select pgflow_tests.start_and_complete_task(:'r2', 'a', 0, '"done"');

-- TEST: mid-run nothing completes (c is left), so nothing is written
select pgflow._complete_runs(array[:'r1', :'r2']::uuid[]);
select results_eq(
  format($$select status, output from pgflow.runs where run_id in (%L, %L)$$, :'r1', :'r2'),
  $$values ('started'::text, null::jsonb), ('started', null)$$,
  'runs with remaining steps keep a NULL output'
);

-- TEST: one key per completed leaf, outputs as stored; the completed non-leaf root is absent
select pgflow_tests.start_and_complete_task(:'r1', 'c', 0, '{"x": 0}');
select is(
  (select output from pgflow.runs where run_id = :'r1'),
  '{"a": 1, "b": [false, null], "c": {"x": 0}}'::jsonb,
  'the output has the completed leaves only'
);

-- TEST: a skipped leaf has no key, not even null
select pgflow_tests.start_and_complete_task(:'r2', 'c', 0, '2');
select is(
  (select status from pgflow.step_states where run_id = :'r2' and step_slug = 'b'),
  'skipped',
  'precondition: leaf b is skipped'
);
select is((select output from pgflow.runs where run_id = :'r2'), '{"a": "done", "c": 2}'::jsonb,
  'only the completed leaves are in the output');

-- TEST: unknown and NULL run ids change nothing and do not raise
select lives_ok(
  $$select pgflow._complete_runs(array['00000000-0000-0000-0000-000000000000', null]::uuid[])$$,
  'unknown and NULL run ids are ignored'
);

select * from finish();
rollback;
