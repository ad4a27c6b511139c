begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last, the first two completed
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: nothing completed yet
select is(pgflow._run_output(:'run_id'), null, 'NULL for a run without completed steps');

-- TEST: completed non-leaf steps do not count
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '1');
select pgflow_tests.start_and_complete_task(:'run_id', 'second', 0, '2');
select is(pgflow._run_output(:'run_id'), null, 'NULL while only non-leaf steps are completed');

-- TEST: unknown and NULL runs
select is(pgflow._run_output('00000000-0000-0000-0000-000000000000'), null, 'NULL for an unknown run');
select is(pgflow._run_output(null), null, 'NULL for a NULL run id');

select * from finish();
rollback;
