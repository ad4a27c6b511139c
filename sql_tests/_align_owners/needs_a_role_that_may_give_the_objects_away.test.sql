begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: pgflow as an install script leaves it (not an extension): the members are
-- detached from the extension, which is then dropped, leaving the objects in place
select pgflow_tests.detach_pgflow_extension();

-- SETUP: the schema and everything in it belong to align_schema_owner, but one function
-- that align_other_owner owns
create role align_schema_owner nologin;
create role align_other_owner nologin;
alter schema pgflow owner to align_schema_owner;
select cmp_ok(pgflow._align_owners(), '>', 0, 'everything given to the schema owner first');
create function pgflow.extra_function() returns int language sql as 'select 1';
alter function pgflow.extra_function() owner to align_other_owner;

-- SETUP: two callers that may run the function: one is a member of the object's owner only,
-- the other of both owners
create role align_member_of_one nologin in role align_other_owner;
create role align_member_of_both nologin in role align_other_owner, align_schema_owner;
grant usage on schema pgflow to align_member_of_one, align_member_of_both;
grant execute on function pgflow._align_owners() to align_member_of_one, align_member_of_both;

-- TEST: a member of the old owner only may not give the function to the schema owner
select is(pgflow_tests.sqlstate_as('align_member_of_one', 'select pgflow._align_owners()'), '42501',
  'a member of the object''s owner only gets 42501');
select is(
  (select proowner::regrole::text from pg_proc where oid = 'pgflow.extra_function()'::regprocedure),
  'align_other_owner',
  'the function keeps its owner'
);

-- TEST: a member of both owners may
select is(pgflow_tests.sqlstate_as('align_member_of_both', 'select pgflow._align_owners()'), '00000',
  'a member of both owners succeeds');
select is(
  (select proowner::regrole::text from pg_proc where oid = 'pgflow.extra_function()'::regprocedure),
  'align_schema_owner',
  'the function now belongs to the schema owner'
);

select * from finish();
rollback;
