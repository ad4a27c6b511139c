begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: pgflow as an install script leaves it (not an extension): the members are
-- detached from the extension, which is then dropped, leaving the objects in place
select pgflow_tests.detach_pgflow_extension();

-- SETUP: the schema belongs to another role than the one that created its objects (as
-- when a superuser upgrades or adopts a schema its application role owns)
create role align_schema_owner nologin;
alter schema pgflow owner to align_schema_owner;

-- The objects the function gives away: every function and procedure, every table, view
-- and sequence (but sequences owned by a column, which follow their table), every composite
-- type (not the row types of tables)
select
  (select count(*) from pg_proc where pronamespace = 'pgflow'::regnamespace)
  + (select count(*) from pg_class as c where c.relnamespace = 'pgflow'::regnamespace
       and c.relkind in ('r', 'p', 'v', 'S')
       and not (c.relkind = 'S' and exists (select 1 from pg_depend as d
                                            where d.classid = 'pg_class'::regclass and d.objid = c.oid
                                              and d.deptype in ('a', 'i'))))
  + (select count(*) from pg_type as t join pg_class as c on c.oid = t.typrelid
     where t.typnamespace = 'pgflow'::regnamespace and c.relkind = 'c')
  as expected
\gset
select cmp_ok(:expected::int, '>', 100, 'the schema holds well over a hundred such objects');

-- TEST: every one of them changes owner
select is(pgflow._align_owners(), :expected::int, 'returns the number of objects given away');

-- TEST: nothing of the schema belongs to another role any more
select is(
  (select count(*)::int from pg_proc where pronamespace = 'pgflow'::regnamespace
     and proowner <> 'align_schema_owner'::regrole)
  + (select count(*)::int from pg_class where relnamespace = 'pgflow'::regnamespace
     and relowner <> 'align_schema_owner'::regrole)
  + (select count(*)::int from pg_type where typnamespace = 'pgflow'::regnamespace
     and typowner <> 'align_schema_owner'::regrole),
  0,
  'no function, relation or type of schema pgflow is owned by another role'
);

-- TEST: the SECURITY DEFINER functions now run as the schema owner
select is(
  (select proowner::regrole::text from pg_proc
   where oid = 'pgflow.start_tasks(text, bigint[], uuid)'::regprocedure),
  'align_schema_owner',
  'start_tasks belongs to the schema owner'
);

-- TEST: a second call finds nothing to change
select is(pgflow._align_owners(), 0, 'a second call returns 0');

select * from finish();
rollback;
