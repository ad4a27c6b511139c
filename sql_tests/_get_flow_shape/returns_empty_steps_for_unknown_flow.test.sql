begin;
select plan(1);

-- SETUP
select pgflow_tests.reset_db();

-- TEST
select is(pgflow._get_flow_shape('no_such_flow'), '{"steps": []}'::jsonb,
  'an unknown flow has the shape {"steps": []}');

select * from finish();
rollback;
