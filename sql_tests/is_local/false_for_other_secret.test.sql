begin;
select plan(2);

-- SETUP: a production-looking secret
select set_config('app.settings.jwt_secret', 'a-real-production-secret-of-more-than-32-characters', true);

-- TEST: any other secret means not local
select is(pgflow.is_local(), false, 'is_local() is false for a secret other than the local CLI one');

-- SETUP: the local secret with different case
select set_config('app.settings.jwt_secret',
  upper('super-secret-jwt-token-with-at-least-32-characters-long'), true);

-- TEST: the comparison is exact
select is(pgflow.is_local(), false, 'is_local() compares the secret exactly (case-sensitive)');

select * from finish();
rollback;
