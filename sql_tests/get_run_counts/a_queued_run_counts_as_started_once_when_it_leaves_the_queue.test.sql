begin;
select plan(4);

-- A closed bucket is written once, and a queued run's started_at is its creation time until
-- it takes a slot (_start_queued_runs moves it to now()). A run counts as started in the
-- bucket where it left the queue, never while queued: a bucket written while it waited does
-- not count it, so it is counted once.

-- SETUP: flow lim limited to one run per concurrency key (queue on limit): a holder run and
-- a run queued behind it, both created 50 minutes ago (started_at and queued_at moved back)
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.keyed_run('lim', 'ck') as holder \gset
select pgflow_tests.keyed_run('lim', 'ck') as waiting \gset
select is(pgflow_tests.run_status(:'waiting'), 'queued', 'precondition: the second run is queued');
update pgflow.step_states set created_at = created_at - interval '50 minutes', started_at = started_at - interval '50 minutes'
where run_id = :'holder';
update pgflow.step_tasks set queued_at = queued_at - interval '50 minutes' where run_id = :'holder';
update pgflow.runs set started_at = started_at - interval '50 minutes',
                       queued_at = queued_at - interval '50 minutes' where flow_slug = 'lim';

-- TEST: one run started, one queued (the closed bucket of 50 minutes ago is written now)
select is((select sum(started)::int from pgflow.get_run_counts('lim', now() - interval '1 hour', 300)), 1,
  'before the release: 1 started (the queued run has not started)');

-- TEST: the holder is cancelled, the queued run takes the slot (started_at becomes now())
select pgflow.cancel_run(:'holder', 'tester', 'test');
select is(pgflow_tests.run_status(:'waiting'), 'started', 'the queued run started');
select is((select sum(started)::int from pgflow.get_run_counts('lim', now() - interval '1 hour', 300)), 2,
  'after the release: 2 runs started, each counted once');

select * from finish();
rollback;
