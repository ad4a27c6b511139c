begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();

-- TEST
select throws_ok($$ select pgflow.start_flow_with_states('no_such_flow', '{}') $$, '23503', null,
  'starting an unknown flow raises a foreign key violation');
select is((select count(*)::int from pgflow.runs), 0, 'no run was created');

select * from finish();
rollback;
