begin;
select plan(5);

-- TEST: volatility categories of upstream's utility and shape functions
select volatility_is('pgflow', 'is_valid_slug', array['text'], 'immutable', 'is_valid_slug is immutable');
select volatility_is('pgflow', 'calculate_retry_delay', array['numeric', 'integer'], 'immutable',
  'calculate_retry_delay is immutable');
select volatility_is('pgflow', 'is_local', array[]::text[], 'stable', 'is_local is stable');
select volatility_is('pgflow', '_get_flow_shape', array['text'], 'stable', '_get_flow_shape is stable');
select volatility_is('pgflow', '_compare_flow_shapes', array['jsonb', 'jsonb'], 'stable',
  '_compare_flow_shapes is stable');

select * from finish();
rollback;
