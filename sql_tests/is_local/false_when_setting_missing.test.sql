begin;
select plan(3);

-- TEST: in a fresh session app.settings.jwt_secret is not defined at all
select is(current_setting('app.settings.jwt_secret', true), null,
  'precondition: the setting is not defined in this session');
select is(pgflow.is_local(), false, 'is_local() is false (not NULL, no error) when the setting is missing');

-- SETUP: an empty setting
select set_config('app.settings.jwt_secret', '', true);

-- TEST: an empty setting is not the local secret
select is(pgflow.is_local(), false, 'is_local() is false when app.settings.jwt_secret is empty');

select * from finish();
rollback;
