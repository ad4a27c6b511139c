begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: pgflow is installed with CREATE EXTENSION here; a function and a table of schema
-- pgflow belong to another role than the owner of the schema
create role align_other_owner nologin;
create function pgflow.extra_function() returns int language sql as 'select 1';
create table pgflow.extra_table (id int);
alter function pgflow.extra_function() owner to align_other_owner;
alter table pgflow.extra_table owner to align_other_owner;

-- TEST: an extension's objects belong to the extension: nothing to do, 0 returned
select is((select count(*)::int from pg_extension where extname = 'pgflow'), 1, 'pgflow is an extension here');
select is(pgflow._align_owners(), 0, 'returns 0');

-- TEST: the objects of the other role keep their owner
select is(
  (select proowner::regrole::text from pg_proc where oid = 'pgflow.extra_function()'::regprocedure),
  'align_other_owner',
  'the function still belongs to the other role'
);
select is(
  (select relowner::regrole::text from pg_class where oid = 'pgflow.extra_table'::regclass),
  'align_other_owner',
  'the table still belongs to the other role'
);

select * from finish();
rollback;
