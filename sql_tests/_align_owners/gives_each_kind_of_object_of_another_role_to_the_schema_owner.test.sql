begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: pgflow as an install script leaves it (not an extension): the members are
-- detached from the extension, which is then dropped, leaving the objects in place
select pgflow_tests.detach_pgflow_extension();

-- SETUP: one object of each kind, created as another role would (an upgrade run by a
-- superuser): a function, a procedure, a table with a serial column (its sequence is owned
-- by the column), a sequence, a view, a composite type, a partitioned table and a partition
create role align_other_owner nologin;
create function pgflow.extra_function() returns int language sql as 'select 1';
create procedure pgflow.extra_procedure() language sql as 'select 1';
create table pgflow.extra_table (id serial primary key);
create sequence pgflow.extra_sequence;
create view pgflow.extra_view as select 1 as one;
create type pgflow.extra_type as (a int);
create table pgflow.extra_parent (k int) partition by list (k);
create table pgflow.extra_child partition of pgflow.extra_parent for values in (1);
alter function pgflow.extra_function() owner to align_other_owner;
alter procedure pgflow.extra_procedure() owner to align_other_owner;
alter table pgflow.extra_table owner to align_other_owner;
alter sequence pgflow.extra_sequence owner to align_other_owner;
alter view pgflow.extra_view owner to align_other_owner;
alter type pgflow.extra_type owner to align_other_owner;
alter table pgflow.extra_parent owner to align_other_owner;
alter table pgflow.extra_child owner to align_other_owner;
select nspowner::regrole::text as schema_owner from pg_namespace where nspname = 'pgflow' \gset

select is((select count(*)::int from pg_extension where extname = 'pgflow'), 0, 'pgflow is not an extension now');

-- TEST: eight objects change owner (the owned sequence follows its table, it is not counted)
select is(pgflow._align_owners(), 8, 'returns 8');

-- TEST: each belongs to the owner of the schema
select results_eq(
  $$ select p.proname::text collate "default", p.proowner::regrole::text from pg_proc as p
     where p.oid in ('pgflow.extra_function()'::regprocedure, 'pgflow.extra_procedure()'::regprocedure)
     union all
     select c.relname::text collate "default", c.relowner::regrole::text from pg_class as c
     where c.relnamespace = 'pgflow'::regnamespace and c.relname like 'extra\_%'
     order by 1 $$,
  format($$ values ('extra_child', %1$L), ('extra_function', %1$L), ('extra_parent', %1$L),
                   ('extra_procedure', %1$L), ('extra_sequence', %1$L), ('extra_table', %1$L),
                   ('extra_table_id_seq', %1$L), ('extra_table_pkey', %1$L), ('extra_type', %1$L),
                   ('extra_view', %1$L) $$, :'schema_owner'),
  'functions, procedure, tables, sequences (the owned one too), view and type belong to the schema owner'
);
select is(
  (select typowner::regrole::text from pg_type where oid = 'pgflow.extra_type'::regtype),
  :'schema_owner',
  'the composite type belongs to the schema owner'
);

-- TEST: nothing of schema pgflow belongs to another role any more
select is(
  (select count(*)::int from pg_proc where pronamespace = 'pgflow'::regnamespace
     and proowner <> :'schema_owner'::regrole)
  + (select count(*)::int from pg_class where relnamespace = 'pgflow'::regnamespace
     and relowner <> :'schema_owner'::regrole)
  + (select count(*)::int from pg_type where typnamespace = 'pgflow'::regnamespace
     and typowner <> :'schema_owner'::regrole),
  0,
  'no function, relation or type of schema pgflow is owned by another role'
);

-- TEST: a second call finds nothing to change
select is(pgflow._align_owners(), 0, 'a second call returns 0');

select * from finish();
rollback;
