begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
create temp table returned_row as select * from pgflow.create_flow('returned_flow', max_attempts => 2);

-- TEST: the result is the inserted pgflow.flows row
select results_eq(
  $$ select * from returned_row $$,
  $$ select * from pgflow.flows where flow_slug = 'returned_flow' $$,
  'create_flow returns the pgflow.flows row it inserted');
select is((select (pgflow.create_flow('returned_flow')).opt_max_attempts), 2,
  'a repeated call returns the stored row as well');
select is(pg_typeof(pgflow.create_flow('returned_flow'))::text, 'pgflow.flows',
  'the return type is pgflow.flows');

select * from finish();
rollback;
