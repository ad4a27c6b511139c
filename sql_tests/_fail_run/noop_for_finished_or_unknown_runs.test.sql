begin;
select plan(5);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: a completed run and a failed run
select pgflow.create_flow('one_step');
select pgflow.add_step('one_step', 'only');
select run_id as done from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'done', 'only');
select run_id as failed from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select pgflow._fail_run(:'failed', 'first');

-- TEST: a completed run stays completed
select pgflow._fail_run(:'done', 'late');
select results_eq(
  format($$select status, failed_at from pgflow.runs where run_id = %L$$, :'done'),
  $$values ('completed'::text, null::timestamptz)$$,
  'a completed run is not failed'
);
select is(
  pgflow_tests.run_events(:'done'),
  array['run:started', 'step:only:started', 'step:only:completed', 'run:completed'],
  'no run:failed for a completed run'
);

-- TEST: a second call on a failed run does nothing
select pgflow._fail_run(:'failed', 'second');
select is(
  (select count(*)::int from realtime.messages where event = 'run:failed'),
  1,
  'run:failed is broadcast once'
);
select is(
  pgflow_tests.event_payload(:'failed', 'run:failed') ->> 'error_message',
  'first',
  'the first failure''s event is the only one'
);

-- TEST: unknown run
select lives_ok(
  $$select pgflow._fail_run('00000000-0000-0000-0000-000000000000', 'x')$$,
  'an unknown run is accepted and does nothing'
);

select * from finish();
rollback;
