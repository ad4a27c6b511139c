begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: flow lim limited to 1 run per key; r1 of key ck failed, r2 of ck holds the slot
select pgflow_tests.limited_flow('lim', 1, 'queue');
select run_id as r1 from pgflow.start_flow('lim', '{"n": 1}', concurrency_key => 'ck', idempotency_key => 'once') \gset
select pgflow_tests.end_run(:'r1', 'failed');
select pgflow_tests.keyed_run('lim', 'ck') as r2 \gset

-- TEST: rerunning r1 starts a new run with r1's concurrency key: it queues behind r2
select status as new_status, run_id as new_run
from pgflow.rerun_flow(:'r1', 'tester', 'again') \gset
select is(:'new_status'::text, 'queued', 'rerun_flow returns the new run, queued');
select results_eq(
  format($$select concurrency_key, rerun_of, input, idempotency_key, status from pgflow.runs where run_id = %L$$,
         :'new_run'),
  format($$values ('ck'::text, %L::uuid, '{"n": 1}'::jsonb, null::text, 'queued'::text)$$, :'r1'),
  'the new run has r1''s key and input, rerun_of r1, no idempotency key'
);
select results_eq(
  format($$select event, details->>'rerun_of', details->>'concurrency_key' from pgflow.run_events
           where run_id = %L order by id$$, :'new_run'),
  format($$values ('run:queued'::text, %L::text, 'ck'::text)$$, :'r1'),
  'its trail: run:queued naming the run it reruns and the key'
);

-- TEST: when r2 ends, the rerun starts
select pgflow_tests.end_run(:'r2', 'completed');
select is(pgflow_tests.run_status(:'new_run'), 'started', 'the rerun starts once r2 completed');

-- TEST: a queued run is not rerun (it has not run)
select pgflow_tests.keyed_run('lim', 'ck') as queued_run \gset
select throws_ok(
  format($$select * from pgflow.rerun_flow(%L, 'tester', null)$$, :'queued_run'),
  '55000', format('rerun_flow: run %s is queued', :'queued_run'),
  'rerun_flow refuses a queued run'
);

-- TEST: on a rejecting flow, a rerun over the limit raises and writes nothing
update pgflow.flows set opt_on_limit = 'reject' where flow_slug = 'lim';
select pgflow_tests.write_counts()::text as before \gset
select throws_ok(
  format($$select * from pgflow.rerun_flow(%L, 'tester', null)$$, :'r1'),
  '53400', null,
  'with on_limit reject, rerunning into a full key raises 53400'
);
select is(pgflow_tests.write_counts()::text, :'before', 'the refused rerun wrote nothing (not even run:rerun)');

select * from finish();
rollback;
