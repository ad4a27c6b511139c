begin;
select plan(3);

-- TEST: signature and volatility
select has_function('pgflow', 'version', array[]::text[], 'pgflow.version() exists');
select function_returns('pgflow', 'version', array[]::text[], 'text', 'version() returns text');
select volatility_is('pgflow', 'version', array[]::text[], 'stable', 'version() is stable');

select * from finish();
rollback;
