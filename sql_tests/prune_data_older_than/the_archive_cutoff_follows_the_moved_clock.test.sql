begin;
select plan(4);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: flow "kept": one step. Two days pass on the test clock, then a run completes: its
-- message is archived now (pgmq's clock), the run completed now (the engine's)
select pgflow.create_flow('kept');
select pgflow.add_step('kept', 'only');
select pgflow_tests.ensure_worker('kept');
select pgflow.advance_clock(2 * 86400);
select run_id from pgflow.start_flow('kept', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('kept', '11111111-1111-1111-1111-111111111111', 10, 5);
select count(*) from pgflow.complete_task(:'run_id', 'only', 0, '1');
select is((select count(*)::int from pgmq.a_kept), 1, 'the message is archived');

-- TEST: a day of retention keeps both: the moved time does not count twice for the archive
select pgflow.prune_data_older_than(interval '1 day');
select is((select count(*)::int from pgmq.a_kept), 1, 'the archived message is kept');
select is((select count(*)::int from pgflow.runs), 1, 'the run is kept');

-- TEST: 25 more hours on the test clock: both are older than a day, and both go
select pgflow.advance_clock(25 * 3600);
select pgflow.prune_data_older_than(interval '1 day');
select is((select count(*)::int from pgmq.a_kept) + (select count(*)::int from pgflow.runs), 0,
  'the archived message and the run are pruned');

select * from finish();
rollback;
