-- is_local: true only when the setting app.settings.jwt_secret holds the local Supabase CLI
-- development secret; false when the setting is missing.

create function pgflow.is_local()
returns boolean
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select coalesce(
    current_setting('app.settings.jwt_secret', true)
      = 'super-secret-jwt-token-with-at-least-32-characters-long',
    false
  );
$$;

comment on function pgflow.is_local() is
'True only when the setting app.settings.jwt_secret holds the local Supabase CLI development
secret; false when the setting is missing. ensure_flow_compiled recompiles mismatched flows
without allow_data_loss only in that case. As upstream pgflow.';
