begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: one keyed run per status: flow solo (no limit) for started, paused, completed, failed,
-- cancelled and expired; flow lim (limit 1, queue) for a queued one behind a holder.
select pgflow_tests.limited_flow('solo', null);
select pgflow_tests.limited_flow('lim', 1, 'queue');
select run_id as started_run from pgflow.start_flow('solo', '{}', idempotency_key => 'k-started') \gset
select run_id as paused_run from pgflow.start_flow('solo', '{}', idempotency_key => 'k-paused') \gset
select run_id as completed_run from pgflow.start_flow('solo', '{}', idempotency_key => 'k-completed') \gset
select run_id as failed_run from pgflow.start_flow('solo', '{}', idempotency_key => 'k-failed') \gset
select run_id as cancelled_run from pgflow.start_flow('solo', '{}', idempotency_key => 'k-cancelled') \gset
select run_id as expired_run from pgflow.start_flow('solo', '{}', idempotency_key => 'k-expired') \gset
select pgflow_tests.keyed_run('lim', 'ck');
select run_id as queued_run
from pgflow.start_flow('lim', '{}', idempotency_key => 'k-queued', concurrency_key => 'ck') \gset
select pgflow.pause_run(:'paused_run', 'tester', null);
select pgflow_tests.end_run(:'completed_run', 'completed');
select pgflow_tests.end_run(:'failed_run', 'failed');
select pgflow_tests.end_run(:'cancelled_run', 'cancelled');
select pgflow_tests.end_run(:'expired_run', 'expired');
select results_eq(
  $$select idempotency_key, status from pgflow.runs where idempotency_key is not null order by idempotency_key$$,
  $$values ('k-cancelled'::text, 'cancelled'::text), ('k-completed', 'completed'), ('k-expired', 'expired'),
           ('k-failed', 'failed'), ('k-paused', 'paused'), ('k-queued', 'queued'), ('k-started', 'started')$$,
  'setup: one keyed run in each status'
);
select pgflow_tests.write_counts()::text as before \gset

-- TEST: each key returns its run, as it is, with duplicate true (another input each time)
select results_eq(
  $$select run_id, status, duplicate from pgflow.start_flow('solo', '{"again": 1}', idempotency_key => 'k-started')$$,
  format($$values (%L::uuid, 'started'::text, true)$$, :'started_run'),
  'a started run is returned as a duplicate'
);
select results_eq(
  $$select run_id, status, duplicate from pgflow.start_flow('solo', '{"again": 1}', idempotency_key => 'k-paused')$$,
  format($$values (%L::uuid, 'paused'::text, true)$$, :'paused_run'),
  'a paused run is returned as a duplicate'
);
select results_eq(
  $$select run_id, status, duplicate from pgflow.start_flow('solo', '{"again": 1}', idempotency_key => 'k-completed')$$,
  format($$values (%L::uuid, 'completed'::text, true)$$, :'completed_run'),
  'a completed run is returned as a duplicate (not started again)'
);
select results_eq(
  $$select run_id, status, duplicate from pgflow.start_flow('solo', '{"again": 1}', idempotency_key => 'k-failed')$$,
  format($$values (%L::uuid, 'failed'::text, true)$$, :'failed_run'),
  'a failed run is returned as a duplicate (not retried)'
);
select results_eq(
  $$select run_id, status, duplicate from pgflow.start_flow('solo', '{"again": 1}', idempotency_key => 'k-cancelled')$$,
  format($$values (%L::uuid, 'cancelled'::text, true)$$, :'cancelled_run'),
  'a cancelled run is returned as a duplicate'
);
select results_eq(
  $$select run_id, status, duplicate from pgflow.start_flow('solo', '{"again": 1}', idempotency_key => 'k-expired')$$,
  format($$values (%L::uuid, 'expired'::text, true)$$, :'expired_run'),
  'an expired run is returned as a duplicate'
);
select results_eq(
  $$select run_id, status, duplicate
    from pgflow.start_flow('lim', '{"again": 1}', idempotency_key => 'k-queued', concurrency_key => 'ck')$$,
  format($$values (%L::uuid, 'queued'::text, true)$$, :'queued_run'),
  'a queued run is returned as a duplicate (no second place in the queue)'
);

-- TEST: none of them wrote anything
select is(pgflow_tests.write_counts()::text, :'before', 'the duplicates wrote nothing');

select * from finish();
rollback;
