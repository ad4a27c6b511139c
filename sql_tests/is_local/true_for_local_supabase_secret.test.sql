begin;
select plan(1);

-- SETUP: the well-known JWT secret of the local Supabase CLI stack
select set_config('app.settings.jwt_secret',
  'super-secret-jwt-token-with-at-least-32-characters-long', true);

-- TEST: local mode is detected
select is(pgflow.is_local(), true, 'is_local() is true with the local Supabase CLI JWT secret');

select * from finish();
rollback;
