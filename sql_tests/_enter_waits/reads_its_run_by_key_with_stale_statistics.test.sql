begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: 200 started runs behind stale statistics; a run of 'gated' whose first step is
-- finished by hand (no cascade), so its step 'gate' is ready to wait for "go"
select pgflow_tests.fill_behind_stale_statistics(200);
select pgflow.create_flow('gated');
select pgflow.add_step('gated', 'prep');
select pgflow.add_step('gated', 'gate', array['prep']);
select pgflow.add_wait('gated', 'gate', 'go');
select run_id from pgflow.start_flow('gated', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'run_id', 'prep', '"p"'::jsonb);
select pgflow_tests.index_reads('pgflow.idx_runs_status') as status_reads \gset

-- TEST: the step starts waiting...
select is(pgflow._enter_waits(:'run_id'), 1, 'one step starts waiting');

-- TEST: ...and the run was read by its key, not among every started run of idx_runs_status
select is(pgflow_tests.index_reads('pgflow.idx_runs_status') - :status_reads, 0::bigint,
  'no entry of idx_runs_status was read');

select * from finish();
rollback;
