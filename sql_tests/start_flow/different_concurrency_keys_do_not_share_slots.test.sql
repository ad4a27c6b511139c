begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: two flows limited to 1 run per key, on_limit queue
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.limited_flow('lim_b', 1, 'queue');

-- TEST: keys a and b of one flow each get their own slot
select results_eq(
  $$select concurrency_key, status from pgflow.start_flow('lim', '{}', concurrency_key => 'a')
    union all select concurrency_key, status from pgflow.start_flow('lim', '{}', concurrency_key => 'b')$$,
  $$values ('a'::text, 'started'::text), ('b', 'started')$$,
  'the first runs of keys a and b both start'
);

-- TEST: the same key in another flow is another slot too
select results_eq(
  $$select status from pgflow.start_flow('lim_b', '{}', concurrency_key => 'a')$$,
  $$values ('started'::text)$$,
  'key a of another flow starts beside key a of lim'
);

-- TEST: a second run of key a queues, while b is untouched
select results_eq(
  $$select status from pgflow.start_flow('lim', '{}', concurrency_key => 'a')$$,
  $$values ('queued'::text)$$,
  'the second run of key a in lim queues'
);

select * from finish();
rollback;
