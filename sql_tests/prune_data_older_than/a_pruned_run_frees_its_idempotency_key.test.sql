begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow solo; run old_done (key k-old) completed two days ago, run recent_done (key
-- k-recent) completed now, run old_running (key k-running) started two days ago and running
select pgflow_tests.limited_flow('solo', null);
select run_id as old_done from pgflow.start_flow('solo', '{}', idempotency_key => 'k-old') \gset
select run_id as recent_done from pgflow.start_flow('solo', '{}', idempotency_key => 'k-recent') \gset
select run_id as old_running from pgflow.start_flow('solo', '{}', idempotency_key => 'k-running') \gset
select pgflow_tests.end_run(:'old_done', 'completed');
select pgflow_tests.end_run(:'recent_done', 'completed');
update pgflow.runs set started_at = now() - interval '2 days', completed_at = now() - interval '2 days'
where run_id = :'old_done';
update pgflow.runs set started_at = now() - interval '2 days' where run_id = :'old_running';

-- TEST: pruning one day removes the old completed run only
select pgflow.prune_data_older_than(interval '1 day');
select results_eq(
  $$select idempotency_key from pgflow.runs order by idempotency_key$$,
  $$values ('k-recent'::text), ('k-running')$$,
  'the run completed two days ago is pruned; the recent and the running ones stay'
);

-- TEST: its key starts a new run (duplicate false, another run id)
select run_id as reborn, duplicate as reborn_duplicate
from pgflow.start_flow('solo', '{"again": true}', idempotency_key => 'k-old') \gset
select is(:'reborn_duplicate'::boolean, false, 'the pruned key creates a new run');
select isnt(:'reborn'::uuid, :'old_done'::uuid, 'the new run has a new run id');
select results_eq(
  format($$select status, input from pgflow.runs where run_id = %L$$, :'reborn'),
  $$values ('started'::text, '{"again": true}'::jsonb)$$,
  'the new run is started with the new input'
);

-- TEST: the keys of runs that were not pruned still return their runs
select results_eq(
  $$select run_id, duplicate from pgflow.start_flow('solo', '{}', idempotency_key => 'k-recent')$$,
  format($$values (%L::uuid, true)$$, :'recent_done'),
  'k-recent still returns its completed run'
);
select results_eq(
  $$select run_id, duplicate from pgflow.start_flow('solo', '{}', idempotency_key => 'k-running')$$,
  format($$values (%L::uuid, true)$$, :'old_running'),
  'k-running still returns its running run (running runs are never pruned)'
);

select * from finish();
rollback;
