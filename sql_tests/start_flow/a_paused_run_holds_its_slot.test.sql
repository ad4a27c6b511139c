begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow lim limited to 1 run per key; a holder and one run queued behind it
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.keyed_run('lim', 'ck') as holder \gset
select pgflow_tests.keyed_run('lim', 'ck') as first_waiting \gset

-- TEST: pausing the holder frees nothing: the queued run stays queued
select pgflow.pause_run(:'holder', 'tester', null);
select is(pgflow_tests.run_status(:'holder'), 'paused', 'the holder is paused');
select is(pgflow_tests.run_status(:'first_waiting'), 'queued', 'the queued run stays queued while the holder is paused');

-- TEST: a start of the key while the holder is paused queues too
select pgflow_tests.keyed_run('lim', 'ck') as second_waiting \gset
select is(pgflow_tests.run_status(:'second_waiting'), 'queued', 'a new run queues behind the paused holder');

-- TEST: resumed and then completed, the holder frees its slot to the oldest queued run only
select pgflow.resume_run(:'holder', 'tester', null);
select is(pgflow_tests.end_run(:'holder', 'completed'), 'completed', 'the holder completes');
select is(pgflow_tests.run_status(:'first_waiting'), 'started', 'the oldest queued run starts');
select is(pgflow_tests.run_status(:'second_waiting'), 'queued', 'the next one stays queued (limit 1)');

select * from finish();
rollback;
