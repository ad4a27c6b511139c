-- Pure helpers used by constraints and functions.

create function pgflow.is_valid_slug(slug text)
returns boolean
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  select slug is not null
    and slug <> ''
    and length(slug) <= 128
    and slug ~ '^[a-zA-Z_][a-zA-Z0-9_]*$'
    and slug <> 'run';
$$;

comment on function pgflow.is_valid_slug(text) is
'True iff slug is a valid flow or step slug: not null, 1..128 characters, matching
^[a-zA-Z_][a-zA-Z0-9_]*$, and not the reserved word run. Never raises. As upstream pgflow.';

create function pgflow.calculate_retry_delay(base_delay numeric, attempts_count int)
returns int
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  select floor(base_delay * power(2, attempts_count))::int;
$$;

comment on function pgflow.calculate_retry_delay(numeric, int) is
'Retry delay in seconds: floor(base_delay * 2^attempts_count). base_delay in seconds;
attempts_count is the number of attempts already made (so the first retry waits
2 x base_delay). As upstream pgflow.';

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

create function pgflow._realtime_enabled()
returns boolean
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- PL/pgSQL, not SQL: a SQL function with SET is never inlined and re-plans its query at
  -- every call, and hot paths call this once per transition.
  -- Usually there is no realtime.send at all: a syscache lookup answers that.
  if pg_catalog.to_regprocedure('realtime.send(jsonb,text,text,boolean)') is null then
    return false;
  end if;
  -- Only a function of a trusted owner: pgflow functions running as their owner call it.
  return exists (
    select 1
    from pg_catalog.pg_proc as p
    join pg_catalog.pg_roles as a on a.oid = p.proowner
    where p.oid = pg_catalog.to_regprocedure('realtime.send(jsonb,text,text,boolean)')
      and (a.rolsuper
           or p.proowner = (select n.nspowner from pg_catalog.pg_namespace as n where n.nspname = 'pgflow'))
  );
end;
$$;

comment on function pgflow._realtime_enabled() is
'True when a function realtime.send(payload jsonb, event text, topic text, private boolean)
exists (Supabase Realtime or a stand-in) and is owned by a superuser or by the owner of
schema pgflow. Without it pgflow emits no broadcasts. The owner check matters because
broadcasts are sent from SECURITY DEFINER functions: a realtime.send created by any other
role (one that may create schemas) would run with the rights of pgflow''s owner.
pgflow-py: upstream calls realtime.send unconditionally.';

create function pgflow._broadcast(run_id uuid, event text, payload jsonb)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  -- Kept in a variable: realtime.send may not exist when this function is checked.
  v_send text := 'select realtime.send($1, $2, $3, false)';
begin
  if pgflow._realtime_enabled() then
    execute v_send using payload, event, 'pgflow:run:' || run_id::text;
  end if;
end;
$$;

comment on function pgflow._broadcast(uuid, text, jsonb) is
'Sends one realtime event (event such as run:started or step:<slug>:completed, payload
jsonb) on topic pgflow:run:<run_id> with private = false, when realtime.send exists;
otherwise does nothing. Callers in hot paths check _realtime_enabled() once and skip
building payloads when it is false.';
