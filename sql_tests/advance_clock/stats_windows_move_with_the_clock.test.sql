begin;
select plan(3);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: one completed run of flow "counted", started and completed now (engine time)
select pgflow.create_flow('counted');
select pgflow.add_step('counted', 'only');
select pgflow_tests.ensure_worker('counted');
select run_id from pgflow.start_flow('counted', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('counted', '11111111-1111-1111-1111-111111111111', 10, 5);
select count(*) from pgflow.complete_task(:'run_id', 'only', 0, '1');

-- TEST: the closed stats buckets end 2 minutes or more before the engine's time
select ok(pgflow._stats_closed_end() <= pgflow._now() - interval '2 minutes', 'closed end before the engine time');

-- TEST: an hour later on the moved clock, the run's bucket is closed and counted in the
-- window of the last hour, and not in a window that starts after it
select pgflow.advance_clock(3600);
select is(
  (select sum(started)::int from pgflow.get_run_counts('counted', pgflow._now() - interval '65 minutes', 3600)),
  1, 'the run counts in the window of the moved clock');
select is(
  (select coalesce(sum(started), 0)::int from pgflow.get_run_counts('counted', pgflow._now() - interval '30 minutes', 3600)),
  0, 'and not in a window that starts after it');

select * from finish();
rollback;
