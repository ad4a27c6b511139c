begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: flow lim: at most 2 runs per key, on_limit queue; two runs of key ck hold the slots
select pgflow_tests.limited_flow('lim', 2, 'queue');
select pgflow_tests.keyed_run('lim', 'ck') as holder1 \gset
select pgflow_tests.keyed_run('lim', 'ck') as holder2 \gset
select pgflow_tests.write_counts() as before \gset

-- TEST: the third and fourth starts of the key are created queued (duplicate false)
select results_eq(
  $$select status, concurrency_key, duplicate from pgflow.start_flow('lim', '{"n": 3}', concurrency_key => 'ck')$$,
  $$values ('queued'::text, 'ck'::text, false)$$,
  'the third start of the key returns a queued run'
);
select run_id as queued2 from pgflow.start_flow('lim', '{"n": 4}', concurrency_key => 'ck') \gset
select results_eq(
  $$select status, count(*)::int from pgflow.runs group by status order by status$$,
  $$values ('queued'::text, 2), ('started', 2)$$,
  'two runs hold the slots, two are queued'
);

-- TEST: queued runs carry queued_at and a queue_seq that grows in start order
select ok(
  (select bool_and(queued_at is not null and queue_seq is not null) from pgflow.runs where status = 'queued'),
  'queued runs have queued_at and queue_seq'
);
select is(
  (select array_agg(input->>'n' order by queue_seq) from pgflow.runs where status = 'queued'),
  array['3', '4'],
  'queue_seq orders the queued runs by start order'
);
select ok(
  (select bool_and(queued_at is null and queue_seq is null) from pgflow.runs where status = 'started'),
  'runs that started at once have no queued_at and no queue_seq'
);

-- TEST: a queued run starts nothing: its step states are created, no task, no message
select results_eq(
  $$select ss.status, count(*)::int from pgflow.step_states as ss
    join pgflow.runs as r using (run_id) where r.status = 'queued' group by ss.status$$,
  $$values ('created'::text, 2)$$,
  'each queued run has its step state, created (not started)'
);
select is(
  (select count(*)::int from pgflow.step_tasks as t join pgflow.runs as r using (run_id) where r.status = 'queued'),
  0,
  'queued runs have no task'
);
select is(
  pgflow_tests.queue_count('lim'),
  (:'before'::jsonb->>'messages')::bigint,
  'no message was sent for the queued runs'
);

-- TEST: the audit trail holds only run:queued for each (details: the key and no deadline)
select results_eq(
  format($$select event, step_slug, actor, details from pgflow.run_events where run_id = %L order by id$$, :'queued2'),
  $$values ('run:queued'::text, null::text, 'app'::text, '{"concurrency_key": "ck"}'::jsonb)$$,
  'a queued run records run:queued with its concurrency key, and no step event'
);

select * from finish();
rollback;
