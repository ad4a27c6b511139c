begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a normal running flow, and a root map over [] already cascaded by start_flow
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.setup_flow('root_map');
select run_id as seq_run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as map_run from pgflow.start_flow('root_map', '[]'::jsonb) \gset

-- TEST: no taskless step -> 0 and no change
select is(pgflow.cascade_complete_taskless_steps(:'seq_run'), 0, 'returns 0 when no step is taskless');
select is(
  (select remaining_steps from pgflow.runs where run_id = :'seq_run'),
  3,
  'remaining_steps is unchanged'
);

-- TEST: a second call after the cascade completes nothing more
select is(pgflow.cascade_complete_taskless_steps(:'map_run'), 0, 'calling it again completes nothing (idempotent)');

select * from finish();
rollback;
