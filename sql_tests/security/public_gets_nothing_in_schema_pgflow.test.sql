begin;
select plan(6);

-- SETUP: a plain login role, member of nothing
create role pgflow_test_nobody login;

-- TEST: PUBLIC (so any role) has no privilege in schema pgflow
select ok(not has_schema_privilege('public', 'pgflow', 'usage'), 'PUBLIC has no USAGE on schema pgflow');
select is(pgflow_tests.executable_by('public'), '{}'::text[], 'PUBLIC may execute no pgflow function');
select is(
  array(select c.relname::text from pg_class as c
        where c.relnamespace = 'pgflow'::regnamespace
          and exists (select 1 from aclexplode(c.relacl) as a where a.grantee = 0)
        order by 1),
  '{}'::text[],
  'no pgflow table or view grants anything to PUBLIC');

-- TEST: a plain login role can neither read, nor write, nor call
select is(pgflow_tests.sqlstate_as('pgflow_test_nobody', 'select pgflow.version()'), '42501',
  'a plain role cannot call pgflow.version()');
select is(pgflow_tests.sqlstate_as('pgflow_test_nobody', 'select count(*) from pgflow.runs'), '42501',
  'a plain role cannot read pgflow.runs');
select is(pgflow_tests.sqlstate_as('pgflow_test_nobody',
  $$select pgflow.start_flow('any', '{}')$$), '42501',
  'a plain role cannot start a run');

select * from finish();
rollback;
