begin;
select plan(2);

-- TEST: callable by clients without direct table access (SECURITY DEFINER upstream too)
select is_definer('pgflow', 'get_run_with_states', array['uuid'], 'get_run_with_states is SECURITY DEFINER');
select function_returns('pgflow', 'get_run_with_states', array['uuid'], 'jsonb', 'get_run_with_states returns jsonb');

select * from finish();
rollback;
