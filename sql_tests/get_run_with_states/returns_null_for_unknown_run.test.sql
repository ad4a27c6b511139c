begin;
select plan(1);

-- SETUP
select pgflow_tests.reset_db();

-- TEST
select is(pgflow.get_run_with_states('bbbbbbbb-0000-0000-0000-000000000000'), null::jsonb,
  'an unknown run id gives NULL');

select * from finish();
rollback;
