begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');

-- TEST: the first start with an idempotency key creates the run and says it is no duplicate
create temp table first_start as
select * from pgflow.start_flow('sequential', '{"n": 1}'::jsonb, idempotency_key => 'order-1');
select results_eq(
  $$select status, idempotency_key, duplicate from first_start$$,
  $$values ('started'::text, 'order-1'::text, false)$$,
  'the first start returns a started run with its key and duplicate false'
);
select results_eq(
  $$select * from first_start$$,
  $$select r.*, false from pgflow.runs as r$$,
  'the returned row is the stored run (every column), then duplicate false'
);

-- TEST: it is a full start: step states and the root task exist
select is(
  (select count(*)::int from pgflow.step_states),
  3,
  'one step state per step is created'
);
select is(
  pgflow_tests.queue_count('sequential'),
  1::bigint,
  'the root step''s task message is queued'
);

select * from finish();
rollback;
