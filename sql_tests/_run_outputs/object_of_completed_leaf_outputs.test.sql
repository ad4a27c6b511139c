begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: root -> a, root -> b (two leaves)
select pgflow.create_flow('forked', max_attempts => 1);
select pgflow.add_step('forked', 'root');
select pgflow.add_step('forked', 'a', array['root']);
select pgflow.add_step('forked', 'b', array['root']);
select run_id from pgflow.start_flow('forked', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'root', 0, '{"r": 1}');
select pgflow_tests.start_and_complete_task(:'run_id', 'a', 0, '1');

-- TEST: mid-run, only the completed leaf is in it; the completed non-leaf never is
select is((select o.output from pgflow._run_outputs(array[:'run_id']::uuid[]) as o), '{"a": 1}'::jsonb, 'a completed leaf is keyed by its slug; the root is not');

-- TEST: every completed leaf, with its output as stored
select pgflow_tests.start_and_complete_task(:'run_id', 'b', 0, '[false, null]');
select is((select o.output from pgflow._run_outputs(array[:'run_id']::uuid[]) as o), '{"a": 1, "b": [false, null]}'::jsonb, 'one key per completed leaf');

-- TEST: it is what the completed run got as output
select is(
  (select output from pgflow.runs where run_id = :'run_id'),
  (select o.output from pgflow._run_outputs(array[:'run_id']::uuid[]) as o),
  'the run''s output equals _run_outputs'
);

select * from finish();
rollback;
