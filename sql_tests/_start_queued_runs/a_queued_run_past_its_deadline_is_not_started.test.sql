begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow lim limited to 1 run per key; a holder and two queued runs; the first queued
-- run's deadline has passed
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.keyed_run('lim', 'ck') as holder \gset
select pgflow_tests.keyed_run('lim', 'ck') as overdue \gset
select pgflow_tests.keyed_run('lim', 'ck') as punctual \gset
update pgflow.runs set deadline = now() - interval '1 second' where run_id = :'overdue';

-- TEST: when the holder completes, the overdue run is passed over and the next one starts
select pgflow_tests.end_run(:'holder', 'completed');
select is(pgflow_tests.run_status(:'overdue'), 'queued', 'the run past its deadline stays queued (left to the tick)');
select is(pgflow_tests.run_status(:'punctual'), 'started', 'the next queued run takes the slot');
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'overdue'),
  0,
  'the overdue run got no task'
);

-- TEST: called again with the slot taken, it starts nothing
select is(pgflow._start_queued_runs('lim', 'ck'), 0, 'a repeated call starts nothing');

-- TEST: with the slot free again, it still does not start the overdue run; the tick expires it
select pgflow_tests.end_run(:'punctual', 'completed');
select is(pgflow._start_queued_runs('lim', 'ck'), 0, 'a free slot does not start a run past its deadline');
select results_eq(
  $$select expired_runs, started_queued_runs from pgflow.tick()$$,
  $$values (1, 0)$$,
  'the tick expires it and starts nothing'
);

select * from finish();
rollback;
