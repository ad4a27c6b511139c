begin;
select plan(3);

select pgflow_tests.reset_db();
select pgflow.create_flow('stats_a');

-- TEST: pgflow_client and pgflow_operator may call it, pgflow_worker may not
select is(pgflow_tests.sqlstate_as('pgflow_client',
  $$select * from pgflow.get_run_counts('stats_a', now() - interval '1 hour')$$), '00000', 'pgflow_client may call it');
select is(pgflow_tests.sqlstate_as('pgflow_operator',
  $$select * from pgflow.get_run_counts('stats_a', now() - interval '1 hour')$$), '00000', 'pgflow_operator may call it');
select is(pgflow_tests.sqlstate_as('pgflow_worker',
  $$select * from pgflow.get_run_counts('stats_a', now() - interval '1 hour')$$), '42501', 'pgflow_worker: 42501');

select * from finish();
rollback;
