begin;
select plan(3);

-- SETUP: pgmq lower-cases queue table names, so Orders and orders would share pgmq.q_orders
select pgflow_tests.reset_db();
select pgflow.create_flow('orders');

-- TEST: a second flow whose slug differs only in case is rejected (pgflow-py addition)
select throws_ok($$ select pgflow.create_flow('Orders') $$, '23505', null,
  'create_flow(''Orders'') raises a unique violation when flow orders exists');
select is((select array_agg(flow_slug) from pgflow.flows), array['orders'],
  'only the first flow exists');
select is((select count(*)::int from pgmq.list_queues()), 1, 'no second queue was created');

select * from finish();
rollback;
