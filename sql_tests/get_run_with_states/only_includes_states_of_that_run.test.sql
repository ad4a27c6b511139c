begin;
select plan(1);

-- SETUP: two runs of the same flow
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('two_roots');
select pgflow.start_flow('two_roots', '{}', 'aaaaaaaa-0000-0000-0000-000000000001');
select pgflow.start_flow('two_roots', '{}');

-- TEST
select is(
  (select count(*)::int from jsonb_array_elements(pgflow.get_run_with_states('aaaaaaaa-0000-0000-0000-000000000001') -> 'steps') as s
   where s ->> 'run_id' = 'aaaaaaaa-0000-0000-0000-000000000001'),
  3,
  'all three step entries belong to the requested run');

select * from finish();
rollback;
