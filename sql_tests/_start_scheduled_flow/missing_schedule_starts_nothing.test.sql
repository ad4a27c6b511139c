begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');

-- TEST: a job left behind by a removed schedule starts nothing and does not fail
select is(pgflow._start_scheduled_flow('gone'), null::uuid, 'returns NULL');
select is((select count(*)::int from pgflow.runs), 0, 'no run started');

select * from finish();
rollback;
