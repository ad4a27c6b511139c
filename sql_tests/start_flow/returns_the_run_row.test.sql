begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
create temp table returned as
  select * from pgflow.start_flow('sequential', '{"x": 1}'::jsonb);

-- TEST: exactly one row comes back
select is(
  (select count(*)::int from returned),
  1,
  'start_flow returns one row'
);

-- TEST: the returned row is the run row, column for column
select results_eq(
  'select * from returned',
  'select * from pgflow.runs',
  'the returned row equals the stored pgflow.runs row (same columns, same order)'
);

select * from finish();
rollback;
