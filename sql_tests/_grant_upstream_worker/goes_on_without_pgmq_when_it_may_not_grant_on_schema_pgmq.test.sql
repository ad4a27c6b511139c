begin;
-- PostgreSQL's WARNING "no privileges were granted for pgmq" and the function's NOTICE
-- (naming the GRANT to run) are expected below: not shown.
set local client_min_messages = error;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a flow; schema pgmq belongs to another role (pgmq_keeper) that gave USAGE on it,
-- without the grant option, to the owner of schema pgflow (here postgres)
select pgflow.create_flow('queued_flow');
create role pgmq_keeper nologin;
alter schema pgmq owner to pgmq_keeper;
revoke usage on schema pgmq from pgflow_upstream_worker;
grant usage on schema pgmq to postgres;

-- SETUP: the caller may act as the owner of schema pgflow, but is no superuser
create role pgflow_admin nologin in role postgres;

-- SETUP: the upstream worker role lost its privileges in pgflow and on the queue
revoke all on all tables in schema pgflow from pgflow_upstream_worker;
revoke all on pgmq.q_queued_flow from pgflow_upstream_worker;

-- TEST: the call goes on (it only warns) and grants the rest
select is(pgflow_tests.sqlstate_as('pgflow_admin', 'select pgflow._grant_upstream_worker()'), '00000',
  'the call succeeds');
select is(has_schema_privilege('pgflow_upstream_worker', 'pgmq', 'usage'), false,
  'no USAGE on schema pgmq was granted');
select is(has_table_privilege('pgflow_upstream_worker', 'pgflow.runs', 'select'), true,
  'the privileges in schema pgflow were granted');
select is(has_table_privilege('pgflow_upstream_worker', 'pgmq.q_queued_flow', 'update'), true,
  'the queue table, which the caller may grant on, was granted');

select * from finish();
rollback;
