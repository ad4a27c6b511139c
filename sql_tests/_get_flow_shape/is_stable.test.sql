begin;
select plan(2);

-- TEST
select volatility_is('pgflow', '_get_flow_shape', array['text'], 'stable', '_get_flow_shape is stable');
select function_returns('pgflow', '_get_flow_shape', array['text'], 'jsonb', '_get_flow_shape returns jsonb');

select * from finish();
rollback;
