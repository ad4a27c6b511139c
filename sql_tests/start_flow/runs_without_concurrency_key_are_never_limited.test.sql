begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: flow rej: at most 1 run per key, on_limit reject
select pgflow_tests.limited_flow('rej', 1, 'reject');

-- TEST: runs without a concurrency key all start, however many
select results_eq(
  $$select status from pgflow.start_flow('rej', '{}')
    union all select status from pgflow.start_flow('rej', '{}')
    union all select status from pgflow.start_flow('rej', '{}')$$,
  $$values ('started'::text), ('started'), ('started')$$,
  'three unkeyed runs of a flow limited to 1 all start'
);

-- TEST: they take no slot: a keyed run still starts, and only the second keyed one is refused
select results_eq(
  $$select status, concurrency_key from pgflow.start_flow('rej', '{}', concurrency_key => 'ck')$$,
  $$values ('started'::text, 'ck'::text)$$,
  'the first keyed run starts beside three unkeyed ones'
);
select throws_ok(
  $$select * from pgflow.start_flow('rej', '{}', concurrency_key => 'ck')$$,
  '53400', null,
  'the second keyed run is refused: only keyed runs count'
);

select * from finish();
rollback;
