begin;
select plan(1);

-- TEST
select function_returns('pgflow', '_create_flow_from_shape', array['text', 'jsonb'], 'void',
  '_create_flow_from_shape returns void');

select * from finish();
rollback;
