begin;
select plan(5);
-- Another session through dblink: the REPEATABLE READ transaction must be its own (this one
-- is READ COMMITTED and only looks), so the setup commits, and the end deletes it.
create extension if not exists dblink;
select dblink_connect('rr_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=rr_a',
  current_setting('port'), current_database(), current_user));
select dblink_exec('rr_a', 'set statement_timeout = 20000');

-- SETUP (committed): flow rr14, at most 1 run per key, on_limit queue; a holder of ck and
-- a run queued behind it
select dblink_exec('rr_a', $o$do $x$ begin
  perform pgflow.create_flow('rr14', concurrency_limit => 1, on_limit => 'queue');
  perform pgflow.add_step('rr14', 'work');
end $x$ $o$);
select run_id as holder from dblink('rr_a',
  $$select run_id from pgflow.start_flow('rr14', '{}', concurrency_key => 'ck')$$) as t (run_id uuid) \gset
select run_id as queued from dblink('rr_a',
  $$select run_id from pgflow.start_flow('rr14', '{}', concurrency_key => 'ck')$$) as t (run_id uuid) \gset

-- TEST: the holder completes in a REPEATABLE READ transaction: it completes, and the release
-- does nothing (its snapshot could be stale)
select dblink_exec('rr_a', 'begin transaction isolation level repeatable read');
select dblink_exec('rr_a', format($o$do $x$ begin perform pgflow_tests.start_and_complete_task(%L, 'work'); end $x$ $o$,
  :'holder'));
select dblink_exec('rr_a', 'commit');
select is(pgflow_tests.run_status(:'holder'), 'completed', 'the holder completed under REPEATABLE READ');
select is(pgflow_tests.run_status(:'queued'), 'queued', 'the queued run was not started by that release');

-- TEST: the next tick (READ COMMITTED) starts it
select results_eq(
  $$select * from dblink('rr_a', 'select started_queued_runs from pgflow.tick()') as t (n int)$$,
  $$values (1)$$,
  'the tick starts the one queued run whose slot is free'
);
select is(pgflow_tests.run_status(:'queued'), 'started', 'the queued run is started');
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'queued' and status = 'queued'),
  1,
  'its root task is queued'
);

-- CLEANUP: the committed rows go
select dblink_exec('rr_a', $o$do $x$ begin perform pgflow.delete_flow_and_data('rr14'); end $x$ $o$);
select dblink_exec('rr_a', 'delete from pgflow.workers');
select dblink_disconnect('rr_a');

select * from finish();
rollback;
