-- The whole test runs in a REPEATABLE READ transaction (set before its first statement).
begin transaction isolation level repeatable read;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: a limited flow and a flow without limit
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.limited_flow('free', null);
select is(current_setting('transaction_isolation'), 'repeatable read', 'setup: the transaction is REPEATABLE READ');
select pgflow_tests.write_counts()::text as before \gset

-- TEST: a start with a concurrency key of a limited flow raises invalid_transaction_state
select throws_ok(
  $$select * from pgflow.start_flow('lim', '{}', concurrency_key => 'ck')$$,
  '25000',
  'start_flow: a run with a concurrency_key needs a READ COMMITTED transaction (this one is repeatable read)',
  'a limited concurrency key under REPEATABLE READ raises 25000'
);
select is(pgflow_tests.write_counts()::text, :'before', 'nothing was written');

-- TEST: what needs no slot still starts: no key, or a key of a flow without limit
select results_eq(
  $$select status from pgflow.start_flow('lim', '{}')$$,
  $$values ('started'::text)$$,
  'an unkeyed run of the limited flow starts'
);
select results_eq(
  $$select status from pgflow.start_flow('free', '{}', concurrency_key => 'ck')$$,
  $$values ('started'::text)$$,
  'a keyed run of a flow without limit starts'
);

-- TEST: an idempotent duplicate needs no slot either: it returns before counting
select run_id as keyed from pgflow.start_flow('lim', '{}', idempotency_key => 'k1') \gset
select results_eq(
  $$select duplicate from pgflow.start_flow('lim', '{}', idempotency_key => 'k1', concurrency_key => 'ck')$$,
  $$values (true)$$,
  'a duplicate start with a limited key returns the run without raising'
);

select * from finish();
rollback;
