begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: flow lim limited to 1 run per key; run r1 of key ck failed (freeing its slot), then
-- run r2 of ck started and holds the slot
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.keyed_run('lim', 'ck', '00000000-0000-0000-0000-0000000000a1') as r1 \gset
select pgflow_tests.end_run(:'r1', 'failed');
select pgflow_tests.keyed_run('lim', 'ck', '00000000-0000-0000-0000-0000000000a2') as r2 \gset
select is(pgflow_tests.run_status(:'r2'), 'started', 'setup: r2 took the slot r1 freed when it failed');
select pgflow_tests.write_counts()::text as before \gset

-- TEST: retrying r1 while r2 holds the slot raises configuration_limit_exceeded (no queueing)
select throws_ok(
  format($$select * from pgflow.retry_run(%L, 'tester', 'try again')$$, :'r1'),
  '53400',
  'a failed run cannot start again: concurrency limit of flow ''lim'' for key ''ck'' is reached (1 of 1): '
    || 'held by run 00000000-0000-0000-0000-0000000000a2',
  'retry_run raises 53400 naming the holder'
);
select is(pgflow_tests.run_status(:'r1'), 'failed', 'r1 stays failed');
select is(pgflow_tests.write_counts()::text, :'before', 'nothing was written');

-- TEST: the same applies to a flow that rejects (the limit is not about on_limit here)
update pgflow.flows set opt_on_limit = 'reject' where flow_slug = 'lim';
select throws_ok(
  format($$select * from pgflow.retry_run(%L, 'tester', 'try again')$$, :'r1'),
  '53400', null,
  'with on_limit reject it raises too'
);
update pgflow.flows set opt_on_limit = 'queue' where flow_slug = 'lim';

-- TEST: once r2 completed, the retry takes the free slot and the run starts again
select pgflow_tests.end_run(:'r2', 'completed');
select results_eq(
  format($$select run_id, status, changed from pgflow.retry_run(%L, 'tester', 'try again')$$, :'r1'),
  format($$values (%L::uuid, 'started'::text, true)$$, :'r1'),
  'with the slot free, retry_run starts r1 again'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'r1' and status = 'queued'),
  1,
  'r1''s failed step has a new queued task'
);

-- TEST: r1 now holds the slot: a new run of the key queues behind it
select pgflow_tests.keyed_run('lim', 'ck') as r3 \gset
select is(pgflow_tests.run_status(:'r3'), 'queued', 'a new run of ck queues behind the retried r1');

select * from finish();
rollback;
