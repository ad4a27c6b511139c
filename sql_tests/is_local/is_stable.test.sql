begin;
select plan(2);

-- TEST: stable (reads a setting), returns boolean
select volatility_is('pgflow', 'is_local', array[]::text[], 'stable', 'is_local is stable');
select function_returns('pgflow', 'is_local', array[]::text[], 'boolean', 'is_local returns boolean');

select * from finish();
rollback;
