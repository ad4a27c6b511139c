begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: 200 started runs with a queued task each, behind stale statistics; a run of
-- root_map over three items is paused (pause_run parks its queued tasks)
select pgflow_tests.fill_behind_stale_statistics(200);
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
analyze pgflow.step_tasks;
select pgflow_tests.index_reads('pgflow.idx_runs_status') as status_reads \gset
select pgflow_tests.index_reads('pgflow.idx_step_tasks_queued_msg') as queued_msg_reads \gset

-- TEST: its three queued tasks are parked...
select ok((select p.changed from pgflow.pause_run(:'run_id', 'test', 'a pause') as p), 'the run is paused');
select is(
  (select count(*)::int from pgflow.step_tasks as t
   where t.run_id = :'run_id' and pgflow_tests.message_exists('root_map', t.message_id, 'a')),
  3, 'its three task messages are in the archive');

-- TEST: ...found from the run, not among the 203 queued tasks of idx_step_tasks_queued_msg
-- or the started runs of idx_runs_status
select is(
  pgflow_tests.index_reads('pgflow.idx_step_tasks_queued_msg') - :queued_msg_reads
    + pgflow_tests.index_reads('pgflow.idx_runs_status') - :status_reads,
  0::bigint,
  'no entry of idx_step_tasks_queued_msg or idx_runs_status was read');

select * from finish();
rollback;
