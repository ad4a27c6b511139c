begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: 200 started runs behind stale statistics; a run of 'gated' waits for "go" with a
-- deadline already past
select pgflow_tests.fill_behind_stale_statistics(200);
select pgflow.create_flow('gated', max_attempts => 1);
select pgflow.add_step('gated', 'gate');
select pgflow.add_wait('gated', 'gate', 'go', timeout => 60);
select run_id from pgflow.start_flow('gated', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select pgflow_tests.index_reads('pgflow.idx_runs_status') as status_reads \gset

-- TEST: the tick fires the wait...
select is((select k.fired_waits from pgflow.tick() as k), 1, 'the tick fires one wait');

-- TEST: ...reading the runs of due waits by key, not every started run through
-- idx_runs_status (no run is queued, so the tick's one read of queued runs finds none)
select is(pgflow_tests.index_reads('pgflow.idx_runs_status') - :status_reads, 0::bigint,
  'no entry of idx_runs_status was read');

select * from finish();
rollback;
