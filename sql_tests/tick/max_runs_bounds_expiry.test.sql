begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: three started runs whose deadlines passed 3, 2 and 1 seconds ago
select pgflow.create_flow('mx');
select pgflow.add_step('mx', 'work');
select run_id as r3 from pgflow.start_flow('mx', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('mx', '{}'::jsonb) \gset
select run_id as r1 from pgflow.start_flow('mx', '{}'::jsonb) \gset
update pgflow.runs set deadline = now() - interval '3 seconds' where run_id = :'r3';
update pgflow.runs set deadline = now() - interval '2 seconds' where run_id = :'r2';
update pgflow.runs set deadline = now() - interval '1 second' where run_id = :'r1';

-- TEST: tick(2) expires the two earliest deadlines only
select results_eq($$select * from pgflow.tick(2)$$, $$values (true, 0, 0, 2, 0, 0)$$, 'tick(2): expired_runs 2');
select results_eq(
  format($$select run_id::text, status from pgflow.runs where run_id in (%L, %L, %L) order by deadline$$, :'r3', :'r2', :'r1'),
  format($$values (%L, 'expired'::text), (%L, 'expired'), (%L, 'started')$$, :'r3', :'r2', :'r1'),
  'the two earliest expired, the third is left');
select is(pgflow_tests.run_leftovers(:'r1') ->> 'live_tasks', '1', 'the third still has its task');

-- TEST: tick(1) expires the one left
select results_eq($$select * from pgflow.tick(1)$$, $$values (true, 0, 0, 1, 0, 0)$$, 'tick(1): expired_runs 1');
select is((select status from pgflow.runs where run_id = :'r1'), 'expired', 'the third is expired');

-- TEST: the bound applies to started/paused runs and to queued runs apart: tick(1) with one
-- of each past its deadline expires both
select pgflow.create_flow('mxq', concurrency_limit => 1);
select pgflow.add_step('mxq', 'work');
select run_id as holder from pgflow.start_flow('mxq', '{}'::jsonb, concurrency_key => 'k') \gset
select run_id as waiter from pgflow.start_flow('mxq', '{}'::jsonb, concurrency_key => 'k') \gset
select run_id as other from pgflow.start_flow('mx', '{}'::jsonb) \gset
select pgflow_tests.pass_deadline(:'waiter');
select pgflow_tests.pass_deadline(:'other');
select results_eq($$select * from pgflow.tick(1)$$, $$values (true, 0, 0, 2, 0, 0)$$,
  'tick(1): one started and one queued run expired');
select results_eq(format($$select status from pgflow.runs where run_id in (%L, %L, %L) order by run_id = %L, run_id = %L$$,
                         :'holder', :'waiter', :'other', :'waiter', :'other'),
  $$values ('started'::text), ('expired'), ('expired')$$, 'holder still started; waiter and other expired');

select * from finish();
rollback;
