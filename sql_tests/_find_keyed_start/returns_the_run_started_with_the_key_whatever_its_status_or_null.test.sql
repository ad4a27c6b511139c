begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: flows orders and invoices (no limit); orders has runs with keys K1 (completed), K2
-- (failed), K3 (cancelled), K4 (started) and a run without key; invoices has a run with K1
select pgflow_tests.limited_flow('orders', null);
select pgflow_tests.limited_flow('invoices', null);
create function pg_temp.flow(slug text) returns pgflow.flows language sql as
  $$select f from pgflow.flows as f where f.flow_slug = slug$$;
select run_id as k1 from pgflow.start_flow('orders', '{}'::jsonb, idempotency_key => 'K1') \gset
select run_id as k2 from pgflow.start_flow('orders', '{}'::jsonb, idempotency_key => 'K2') \gset
select run_id as k3 from pgflow.start_flow('orders', '{}'::jsonb, idempotency_key => 'K3') \gset
select run_id as k4 from pgflow.start_flow('orders', '{}'::jsonb, idempotency_key => 'K4') \gset
select run_id as inv from pgflow.start_flow('invoices', '{}'::jsonb, idempotency_key => 'K1') \gset
select pgflow.start_flow('orders', '{}'::jsonb);
select pgflow_tests.end_run(:'k1', 'completed'), pgflow_tests.end_run(:'k2', 'failed'),
       pgflow_tests.end_run(:'k3', 'cancelled');
select pgflow_tests.write_counts() as before \gset

-- TEST: the run of the flow started with the key, whatever its status
select is(pgflow._find_keyed_start(pg_temp.flow('orders'), 'K1', null), :'k1'::uuid, 'K1: the completed run');
select is(pgflow._find_keyed_start(pg_temp.flow('orders'), 'K2', null), :'k2'::uuid, 'K2: the failed run');
select is(pgflow._find_keyed_start(pg_temp.flow('orders'), 'K3', null), :'k3'::uuid, 'K3: the cancelled run');
select is(pgflow._find_keyed_start(pg_temp.flow('orders'), 'K4', 'tenant-a'), :'k4'::uuid,
  'K4: the started run (a concurrency key given with it changes nothing)');

-- TEST: keys belong to one flow
select is(pgflow._find_keyed_start(pg_temp.flow('invoices'), 'K1', null), :'inv'::uuid,
  'K1 of invoices is invoices'' run, not orders''');

-- TEST: NULL when no run of the flow has the key (keys are compared exactly)
select is(pgflow._find_keyed_start(pg_temp.flow('orders'), 'K5', null), null::uuid, 'an unused key: NULL');
select is(pgflow._find_keyed_start(pg_temp.flow('orders'), 'k1', null), null::uuid, 'k1 is not K1: NULL');

-- TEST: nothing was written
select is(pgflow_tests.write_counts(), :'before'::jsonb, 'no row or message was written');

select * from finish();
rollback;
