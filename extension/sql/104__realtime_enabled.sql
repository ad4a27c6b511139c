-- _realtime_enabled: true when a function realtime.send(payload jsonb, event text, topic text,
-- private boolean) exists (Supabase Realtime or a stand-in) and is owned by a superuser or by
-- the owner of schema pgflow.

create function pgflow._realtime_enabled()
returns boolean
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- PL/pgSQL, not SQL: a SQL function with SET is never inlined and re-plans its query at
  -- every call, and hot paths call this once per transition.
  -- Usually there is no schema realtime at all: a syscache lookup answers that, without
  -- parsing a signature.
  if pg_catalog.to_regnamespace('realtime') is null
     or pg_catalog.to_regprocedure('realtime.send(jsonb,text,text,boolean)') is null then
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
