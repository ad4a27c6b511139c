begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();

-- TEST
select throws_ok($$ select pgflow.track_worker_function(null) $$, '23502', null,
  'a NULL function name raises a not-null violation');
select is((select count(*)::int from pgflow.worker_functions), 0, 'nothing was inserted');

select * from finish();
rollback;
