begin;
select plan(1);

-- SETUP: flow options are set but options are never part of the DB shape
select pgflow_tests.reset_db();
select pgflow.create_flow('empty_flow', max_attempts => 7, timeout => 9);

-- TEST
select is(pgflow._get_flow_shape('empty_flow'), '{"steps": []}'::jsonb,
  'a flow without steps has the shape {"steps": []} (no options key)');

select * from finish();
rollback;
