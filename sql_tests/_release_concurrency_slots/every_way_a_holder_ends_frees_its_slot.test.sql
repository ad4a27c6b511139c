begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: flow lim limited to 1 run per key; four keys, each with a holder and a queued run
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.keyed_run('lim', 'k-completed') as h_completed \gset
select pgflow_tests.keyed_run('lim', 'k-completed') as q_completed \gset
select pgflow_tests.keyed_run('lim', 'k-failed') as h_failed \gset
select pgflow_tests.keyed_run('lim', 'k-failed') as q_failed \gset
select pgflow_tests.keyed_run('lim', 'k-cancelled') as h_cancelled \gset
select pgflow_tests.keyed_run('lim', 'k-cancelled') as q_cancelled \gset
select pgflow_tests.keyed_run('lim', 'k-expired') as h_expired \gset
select pgflow_tests.keyed_run('lim', 'k-expired') as q_expired \gset

-- TEST: a completed holder frees its slot: the run queued behind it starts
select is(pgflow_tests.end_run(:'h_completed', 'completed'), 'completed', 'holder of k-completed completes');
select is(pgflow_tests.run_status(:'q_completed'), 'started', 'the run queued on k-completed starts');

-- TEST: a failed holder (its task failed, _fail_run) frees it
select is(pgflow_tests.end_run(:'h_failed', 'failed'), 'failed', 'holder of k-failed fails');
select is(pgflow_tests.run_status(:'q_failed'), 'started', 'the run queued on k-failed starts');

-- TEST: a cancelled holder (cancel_run) frees it
select is(pgflow_tests.end_run(:'h_cancelled', 'cancelled'), 'cancelled', 'holder of k-cancelled is cancelled');
select is(pgflow_tests.run_status(:'q_cancelled'), 'started', 'the run queued on k-cancelled starts');

-- TEST: an expired holder (_expire_runs) frees it
select is(pgflow_tests.end_run(:'h_expired', 'expired'), 'expired', 'holder of k-expired expires');
select is(pgflow_tests.run_status(:'q_expired'), 'started', 'the run queued on k-expired starts');

select * from finish();
rollback;
