begin;
select plan(4);

-- SETUP: the privileges as installed
create temp table before_acl as
  select p.oid::regprocedure::text as name, p.proacl::text as acl, p.prosecdef, p.proconfig::text as config
  from pg_proc as p where p.pronamespace = 'pgflow'::regnamespace
  union all
  select c.relname::text, c.relacl::text, null, null
  from pg_class as c where c.relnamespace = 'pgflow'::regnamespace
  union all
  select n.nspname::text, n.nspacl::text, null, null from pg_namespace as n where n.nspname = 'pgflow';

-- TEST: running it again returns the three roles and changes nothing
select is(pgflow.setup_security(), array['pgflow_worker', 'pgflow_client', 'pgflow_operator', 'pgflow_upstream_worker'], 'returns the roles it granted');
select is(pgflow.setup_security(), array['pgflow_worker', 'pgflow_client', 'pgflow_operator', 'pgflow_upstream_worker'], 'a second call too');
select set_eq(
  $$ select p.oid::regprocedure::text, p.proacl::text, p.prosecdef, p.proconfig::text
     from pg_proc as p where p.pronamespace = 'pgflow'::regnamespace
     union all
     select c.relname::text, c.relacl::text, null, null
     from pg_class as c where c.relnamespace = 'pgflow'::regnamespace
     union all
     select n.nspname::text, n.nspacl::text, null, null from pg_namespace as n where n.nspname = 'pgflow' $$,
  $$ select * from before_acl $$,
  'privileges, SECURITY DEFINER and settings are unchanged');

-- TEST: only the owner may run it
select is(pgflow_tests.sqlstate_as('pgflow_worker', 'select pgflow.setup_security()'), '42501',
  'pgflow_worker may not run setup_security');

select * from finish();
rollback;
