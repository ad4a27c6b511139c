begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: 200 started runs behind stale statistics; a run of 'gated' waits for "go"
select pgflow_tests.fill_behind_stale_statistics(200);
select pgflow.create_flow('gated');
select pgflow.add_step('gated', 'gate');
select pgflow.add_wait('gated', 'gate', 'go');
select run_id from pgflow.start_flow('gated', '{}'::jsonb) \gset
select pgflow_tests.index_reads('pgflow.idx_runs_status') as status_reads \gset

-- TEST: nothing can end the wait now...
select is(pgflow._resolve_waits(:'run_id'), 0, 'no wait resolved');

-- TEST: ...and the run was read by its key: no started run was read through idx_runs_status
-- (with `status = 'started'` the plan read every started run to find this one)
select is(pgflow_tests.index_reads('pgflow.idx_runs_status') - :status_reads, 0::bigint,
  'no entry of idx_runs_status was read');

select * from finish();
rollback;
