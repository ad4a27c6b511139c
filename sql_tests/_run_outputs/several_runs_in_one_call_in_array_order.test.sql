begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: two runs of sequential; in the first, last completed; the second has nothing done
select pgflow_tests.setup_flow('sequential');
select run_id as r1 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'r1', 'first', 0, '1');
select pgflow_tests.start_and_complete_task(:'r1', 'second', 0, '2');
select pgflow_tests.start_and_complete_task(:'r1', 'last', 0, '3');

-- TEST: one row per run, in array order, NULL for the run without completed leaves
select results_eq(
  format($$select run_id, output from pgflow._run_outputs(array[%L, %L]::uuid[])$$, :'r2', :'r1'),
  format($$values (%L::uuid, null::jsonb), (%L::uuid, '{"last": 3}'::jsonb)$$, :'r2', :'r1'),
  'outputs of both runs, in array order'
);

select * from finish();
rollback;
