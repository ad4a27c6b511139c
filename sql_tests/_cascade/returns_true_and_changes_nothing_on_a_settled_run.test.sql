begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a run whose only ready step is started; a snapshot of its state
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
create temp table before_states as select * from pgflow.step_states where run_id = :'run_id';
create temp table before_run as select * from pgflow.runs where run_id = :'run_id';

-- TEST: nothing to settle: true, nothing written
select is(pgflow._cascade(:'run_id'), true, 'returns true for a run with nothing to settle');
select is(pgflow._cascade(:'run_id'), true, 'a repeated call returns true again');
select results_eq(
  format('select * from pgflow.step_states where run_id = %L order by step_slug', :'run_id'),
  'select * from before_states order by step_slug',
  'step states are unchanged'
);
select results_eq(
  format('select * from pgflow.runs where run_id = %L', :'run_id'),
  'select * from before_run',
  'the run is unchanged'
);

select * from finish();
rollback;
