begin;
select plan(2);

-- TEST: callable by clients without direct table access (SECURITY DEFINER upstream too)
select is_definer('pgflow', 'start_flow_with_states', array['text', 'jsonb', 'uuid'],
  'start_flow_with_states is SECURITY DEFINER');
select function_returns('pgflow', 'start_flow_with_states', array['text', 'jsonb', 'uuid'], 'jsonb',
  'start_flow_with_states returns jsonb');

select * from finish();
rollback;
