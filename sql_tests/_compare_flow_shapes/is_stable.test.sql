begin;
select plan(2);

-- TEST
select volatility_is('pgflow', '_compare_flow_shapes', array['jsonb', 'jsonb'], 'stable',
  '_compare_flow_shapes is stable');
select function_returns('pgflow', '_compare_flow_shapes', array['jsonb', 'jsonb'], 'text[]',
  '_compare_flow_shapes returns text[]');

select * from finish();
rollback;
