-- _align_owners: every object of schema pgflow owned by the schema's owner.

create function pgflow._align_owners()
returns int
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_owner oid := (select n.nspowner from pg_catalog.pg_namespace as n where n.nspname = 'pgflow');
  v_statement text;
  v_count int := 0;
begin
  -- An upgrade or an adoption run by another role (a superuser) than the one that owns the
  -- schema creates the new functions and tables as itself. SECURITY DEFINER functions run
  -- as their owner: the schema owner's would then be refused the new helpers. (An
  -- extension's objects belong to the extension: nothing to do there.)
  if exists (select 1 from pg_catalog.pg_extension where extname = 'pgflow') then
    return 0;
  end if;
  for v_statement in
    select format('alter routine %s owner to %I', p.oid::pg_catalog.regprocedure, v_owner::pg_catalog.regrole)
    from pg_catalog.pg_proc as p
    where p.pronamespace = 'pgflow'::pg_catalog.regnamespace and p.proowner <> v_owner
    union all
    select format('alter %s %s owner to %I',
                  case c.relkind when 'v' then 'view' when 'S' then 'sequence' else 'table' end,
                  c.oid::pg_catalog.regclass, v_owner::pg_catalog.regrole)
    from pg_catalog.pg_class as c
    where c.relnamespace = 'pgflow'::pg_catalog.regnamespace and c.relkind in ('r', 'p', 'v', 'S')
      and c.relowner <> v_owner
      and not exists (select 1 from pg_catalog.pg_depend as d  -- owned sequences follow
                      where d.objid = c.oid and d.deptype in ('a', 'i') and c.relkind = 'S')
    union all
    select format('alter type %s owner to %I', t.oid::pg_catalog.regtype, v_owner::pg_catalog.regrole)
    from pg_catalog.pg_type as t
    where t.typnamespace = 'pgflow'::pg_catalog.regnamespace and t.typtype = 'c'
      and t.typowner <> v_owner
      and not exists (select 1 from pg_catalog.pg_class as c where c.oid = t.typrelid and c.relkind <> 'c')
  loop
    execute v_statement;
    v_count := v_count + 1;
  end loop;
  return v_count;
end;
$$;

comment on function pgflow._align_owners() is
'Makes the owner of schema pgflow the owner of every function, table, view, sequence and
composite type in it that another role owns (an upgrade or an adoption run as a superuser
creates its new objects as itself, and the schema owner''s SECURITY DEFINER functions could
not call them). Returns how many objects changed owner (0 when pgflow is an extension,
whose objects belong to the extension). Needs a role that may give the objects away (a
superuser, or a member of both owners). Run by every upgrade and adoption script before
setup_security. pgflow-py internal.';
