begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a flow without concurrency_limit
select pgflow_tests.limited_flow('free', null);

-- TEST: every start of a key starts, and the key is stored on each run
select results_eq(
  $$select status, concurrency_key, queued_at, queue_seq from pgflow.start_flow('free', '{}', concurrency_key => 'ck')
    union all select status, concurrency_key, queued_at, queue_seq from pgflow.start_flow('free', '{}', concurrency_key => 'ck')
    union all select status, concurrency_key, queued_at, queue_seq from pgflow.start_flow('free', '{}', concurrency_key => 'ck')$$,
  $$values ('started'::text, 'ck'::text, null::timestamptz, null::bigint), ('started', 'ck', null, null),
           ('started', 'ck', null, null)$$,
  'without a flow limit, runs of one key all start and record the key'
);
select is(
  (select count(*)::int from pgflow.step_tasks as t join pgflow.runs as r using (run_id) where r.concurrency_key = 'ck'),
  3,
  'each of them has its root task'
);

-- TEST: the run:started event carries the key
select is(
  (select count(*)::int from pgflow.run_events where event = 'run:started' and details->>'concurrency_key' = 'ck'),
  3,
  'run:started records the concurrency key of each'
);

select * from finish();
rollback;
