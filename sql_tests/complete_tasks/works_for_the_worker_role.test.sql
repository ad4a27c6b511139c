begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a started task
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');

-- TEST: pgflow_worker (no table privilege) reports through complete_tasks; a client may not
select is(
  pgflow_tests.sqlstate_as('pgflow_client', format(
    $$select pgflow.complete_tasks(array[%L]::uuid[], array['first'], array[0], array['1']::jsonb[])$$, :'run_id')),
  '42501', 'pgflow_client may not call complete_tasks');
select is(
  pgflow_tests.sqlstate_as('pgflow_worker', format(
    $$select pgflow.complete_tasks(array[%L]::uuid[], array['first'], array[0], array['1']::jsonb[])$$, :'run_id')),
  '00000', 'pgflow_worker completes tasks with complete_tasks');

select * from finish();
rollback;
