begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow two_roots (two root steps, no limit) and flow lim (limit 1, queue)
select pgflow_tests.setup_flow('two_roots');
select pgflow_tests.limited_flow('lim', 1, 'queue');

-- TEST: a plain start records run:started (no details) then step:started per root step, in
-- step order, all by app
select run_id as plain from pgflow.start_flow('two_roots', '{}') \gset
select results_eq(
  format($$select event, step_slug, actor, details from pgflow.run_events where run_id = %L order by id$$, :'plain'),
  $$values ('run:started'::text, null::text, 'app'::text, null::jsonb),
           ('step:started', 'root_a', 'app', null), ('step:started', 'root_b', 'app', null)$$,
  'run:started without details, then step:started for root_a and root_b'
);

-- TEST: a keyed start with a deadline records both in run:started's details
select run_id as keyed, deadline as keyed_deadline
from pgflow.start_flow('two_roots', '{}', concurrency_key => 'ck', deadline => now() + interval '1 hour') \gset
select results_eq(
  format($$select details->>'concurrency_key', (details->>'deadline')::timestamptz, details ? 'queued_at'
           from pgflow.run_events where run_id = %L and event = 'run:started'$$, :'keyed'),
  format($$values ('ck'::text, %L::timestamptz, false)$$, :'keyed_deadline'),
  'run:started carries the concurrency key and the deadline, no queued_at'
);

-- TEST: a queued run records run:queued only (no step event), with the key; the actor comes
-- from pgflow.actor when set
select pgflow_tests.keyed_run('lim', 'ck');
select set_config('pgflow.actor', 'scheduler', true);
select pgflow_tests.keyed_run('lim', 'ck') as queued \gset
select set_config('pgflow.actor', '', true);
select results_eq(
  format($$select event, step_slug, actor, details from pgflow.run_events where run_id = %L order by id$$, :'queued'),
  $$values ('run:queued'::text, null::text, 'scheduler'::text, '{"concurrency_key": "ck"}'::jsonb)$$,
  'run:queued, by the pgflow.actor of the caller, with the key'
);

-- TEST: with realtime on, a started run is broadcast, a queued one is not until it starts
select pgflow_tests.create_realtime_stub();
select pgflow_tests.limited_flow('lim2', 1, 'queue');
select pgflow_tests.keyed_run('lim2', 'ck') as holder2 \gset
select pgflow_tests.keyed_run('lim2', 'ck') as queued2 \gset
select is(pgflow_tests.run_events(:'holder2'), array['run:started', 'step:work:started'], 'the holder is broadcast started');
select is(pgflow_tests.run_events(:'queued2'), '{}'::text[], 'the queued run is not broadcast');
select pgflow_tests.end_run(:'holder2', 'completed');
select is(
  pgflow_tests.event_payload(:'queued2', 'run:started')->>'status',
  'started',
  'once it leaves the queue, run:started is broadcast'
);

select * from finish();
rollback;
