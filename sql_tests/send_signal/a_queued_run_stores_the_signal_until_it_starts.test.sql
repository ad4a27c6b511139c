begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: flow gated, at most 1 run per key: root step gate waits for signal go (no handler,
-- completes with the payload), then step after. A holder of ck waits at gate; a run of ck is
-- queued behind it.
select pgflow.create_flow('gated', max_attempts => 1, concurrency_limit => 1, on_limit => 'queue');
select pgflow.add_step('gated', 'gate');
select pgflow.add_wait('gated', 'gate', 'go', runs_handler => false);
select pgflow.add_step('gated', 'after', array['gate']);
select pgflow_tests.keyed_run('gated', 'ck') as holder \gset
select pgflow_tests.keyed_run('gated', 'ck') as queued \gset
select results_eq(
  format($$select status from pgflow.runs where run_id in (%L, %L) order by queue_seq nulls first$$,
         :'holder', :'queued'),
  $$values ('started'::text), ('queued')$$,
  'setup: the holder is started, the other run queued'
);

-- TEST: a signal to the queued run is stored pending; nothing of the run starts
select results_eq(
  format($$select run_id, signal_name, payload, status, duplicate from pgflow.send_signal(%L, 'go', '{"n": 2}')$$,
         :'queued'),
  format($$values (%L::uuid, 'go'::text, '{"n": 2}'::jsonb, 'pending'::text, false)$$, :'queued'),
  'send_signal to a queued run returns the stored signal, pending'
);
select is(pgflow_tests.run_status(:'queued'), 'queued', 'the run is still queued');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'queued'),
  $$values ('after'::text, 'created'::text), ('gate', 'created')$$,
  'its steps are still created (no wait entered)'
);
select is(
  (select count(*)::int from pgflow.wait_states where run_id = :'queued'),
  0,
  'it has no wait state'
);

-- TEST: once the holder ends, the run starts, its gate takes the stored signal at once and
-- the run goes on to after
select pgflow.cancel_run(:'holder', 'tester', null);
select is(pgflow_tests.run_status(:'queued'), 'started', 'the run starts when the holder is cancelled');
select results_eq(
  format($$select status, taken_by_step, taken_at is not null from pgflow.signals where run_id = %L$$, :'queued'),
  $$values ('taken'::text, 'gate'::text, true)$$,
  'the stored signal is taken by gate'
);
select results_eq(
  format($$select step_slug, status, output from pgflow.step_states where run_id = %L order by step_slug$$, :'queued'),
  $$values ('after'::text, 'started'::text, null::jsonb), ('gate', 'completed', '{"n": 2}')$$,
  'gate completed with the payload; after started'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'queued' and step_slug = 'after' and status = 'queued'),
  1,
  'after''s task is queued'
);

select * from finish();
rollback;
