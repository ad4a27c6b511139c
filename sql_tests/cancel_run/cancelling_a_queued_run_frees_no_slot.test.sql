begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: flow lim limited to 1 run per key; a holder and two queued runs
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.keyed_run('lim', 'ck') as holder \gset
select pgflow_tests.keyed_run('lim', 'ck') as q1 \gset
select pgflow_tests.keyed_run('lim', 'ck') as q2 \gset

-- TEST: a queued run can be cancelled
select results_eq(
  format($$select run_id, status, changed from pgflow.cancel_run(%L, 'tester', 'not needed')$$, :'q1'),
  format($$values (%L::uuid, 'cancelled'::text, true)$$, :'q1'),
  'cancel_run cancels a queued run'
);
select results_eq(
  format($$select status, cancelled_at is not null from pgflow.runs where run_id = %L$$, :'q1'),
  $$values ('cancelled'::text, true)$$,
  'it is cancelled, with cancelled_at'
);
select results_eq(
  format($$select status from pgflow.step_states where run_id = %L$$, :'q1'),
  $$values ('cancelled'::text)$$,
  'its created step state is cancelled'
);
select is(
  (select array_agg(event order by id) from pgflow.run_events where run_id = :'q1'),
  array['run:queued', 'run:cancelled', 'step:cancelled'],
  'its trail: run:queued, run:cancelled, step:cancelled'
);

-- TEST: it held no slot, so nothing moves: the holder runs on, the next queued run waits
select is(pgflow_tests.run_status(:'holder'), 'started', 'the holder is still started');
select is(pgflow_tests.run_status(:'q2'), 'queued', 'the next queued run stays queued');

-- TEST: when the holder ends, the cancelled run is passed over and q2 starts
select pgflow_tests.end_run(:'holder', 'completed');
select is(pgflow_tests.run_status(:'q2'), 'started', 'q2 starts once the holder completed');
select is(pgflow_tests.run_status(:'q1'), 'cancelled', 'the cancelled run stays cancelled');

select * from finish();
rollback;
