begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
create temp table returned_row as select * from pgflow.add_step('flow_a', 'first', timeout => 9);

-- TEST: the result is the inserted pgflow.steps row
select results_eq(
  $$ select * from returned_row $$,
  $$ select * from pgflow.steps where flow_slug = 'flow_a' and step_slug = 'first' $$,
  'add_step returns the pgflow.steps row it inserted');
select is(pg_typeof(pgflow.add_step('flow_a', 'first', timeout => 9))::text, 'pgflow.steps',
  'the return type is pgflow.steps');

select * from finish();
rollback;
