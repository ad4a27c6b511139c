begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last, the first two completed
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: nothing completed yet
select is((select o.output from pgflow._run_outputs(array[:'run_id']::uuid[]) as o), null, 'NULL for a run without completed steps');

-- TEST: completed non-leaf steps do not count
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '1');
select pgflow_tests.start_and_complete_task(:'run_id', 'second', 0, '2');
select is((select o.output from pgflow._run_outputs(array[:'run_id']::uuid[]) as o), null, 'NULL while only non-leaf steps are completed');

-- TEST: unknown and NULL runs
select is((select o.output from pgflow._run_outputs(array['00000000-0000-0000-0000-000000000000']::uuid[]) as o), null, 'NULL for an unknown run');
select is((select o.output from pgflow._run_outputs(array[null]::uuid[]) as o), null, 'NULL for a NULL run id');

select * from finish();
rollback;
