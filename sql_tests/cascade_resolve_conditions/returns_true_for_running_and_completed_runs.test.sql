begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a running run and a completed run (root map over [])
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.setup_flow('root_map');
select run_id as running from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as done from pgflow.start_flow('root_map', '[]'::jsonb) \gset

-- TEST: the run may continue
select is(pgflow.cascade_resolve_conditions(:'running'), true, 'returns true for a running run without conditions');
select is(pgflow.cascade_resolve_conditions(:'done'), true, 'returns true for a completed run');
select is(
  (select remaining_steps from pgflow.runs where run_id = :'running'),
  3,
  'a run without conditions is not changed'
);

select * from finish();
rollback;
