-- Helpers for the privilege tests (sql_tests/security/ and the folders of the role-facing
-- functions). Loaded after pgflow_tests.sql by tools/run_pgtap.sh.

set client_min_messages = warning;
create schema if not exists pgflow_tests;

-- Runs one statement as role p_role (SET LOCAL ROLE; the caller's role is restored
-- afterwards) and returns its SQLSTATE: '00000' when it succeeded, '42501' when a
-- privilege was missing, ... The statement's effects stay in the test's transaction.
create or replace function pgflow_tests.sqlstate_as(p_role text, p_sql text)
returns text
language plpgsql
as $$
declare
  v_state text := '00000';
begin
  execute format('set local role %I', p_role);
  begin
    execute p_sql;
  exception when others then
    v_state := sqlstate;
  end;
  reset role;
  return v_state;
end;
$$;

-- A pgflow function as 'name(argtypes)' without the schema: 'start_flow(text,jsonb,uuid)'.
create or replace function pgflow_tests.signature(p_oid oid)
returns text
language sql
stable
as $$
  select pg_catalog.regexp_replace(p_oid::regprocedure::text, '^pgflow\.', '');
$$;

-- The pgflow functions role p_role may execute, as pgflow_tests.signature, sorted.
create or replace function pgflow_tests.executable_by(p_role text)
returns text[]
language sql
stable
as $$
  select coalesce(array_agg(pgflow_tests.signature(p.oid) order by pgflow_tests.signature(p.oid)), '{}')
  from pg_catalog.pg_proc as p
  where p.pronamespace = 'pgflow'::regnamespace
    and pg_catalog.has_function_privilege(p_role, p.oid, 'execute');
$$;

-- The relations of schema pgflow on which role p_role holds privilege p_privilege
-- (SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER), sorted.
create or replace function pgflow_tests.relations_with(p_role text, p_privilege text)
returns text[]
language sql
stable
as $$
  select coalesce(array_agg(c.relname::text order by c.relname), '{}')
  from pg_catalog.pg_class as c
  where c.relnamespace = 'pgflow'::regnamespace
    and c.relkind in ('r', 'v', 'm', 'p', 'f')
    and pg_catalog.has_table_privilege(p_role, c.oid, p_privilege);
$$;
