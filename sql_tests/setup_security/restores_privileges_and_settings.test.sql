begin;
select plan(6);

-- SETUP: drift, as after a CREATE OR REPLACE FUNCTION in an upgrade and a manual GRANT
alter function pgflow.complete_task(uuid, text, int, jsonb, int) security invoker;
alter function pgflow.complete_task(uuid, text, int, jsonb, int) set search_path = '';
revoke execute on function pgflow.fail_task(uuid, text, int, text, int) from pgflow_worker;
grant insert on pgflow.runs to pgflow_client;
grant execute on function pgflow.delete_flow_and_data(text) to public;

-- TEST
select is(pgflow.setup_security(), array['pgflow_worker', 'pgflow_client', 'pgflow_operator', 'pgflow_upstream_worker'], 'returns the roles it granted');
select ok((select prosecdef from pg_proc where oid = 'pgflow.complete_task(uuid, text, int, jsonb, int)'::regprocedure),
  'complete_task is SECURITY DEFINER again');
select is((select proconfig from pg_proc where oid = 'pgflow.complete_task(uuid, text, int, jsonb, int)'::regprocedure),
  array['search_path=pg_catalog, pg_temp'], 'its search_path is pinned again');
select ok(has_function_privilege('pgflow_worker', 'pgflow.fail_task(uuid, text, int, text, int)', 'execute'),
  'pgflow_worker may fail tasks again');
select ok(not has_table_privilege('pgflow_client', 'pgflow.runs', 'insert'),
  'a grant beyond the model is revoked');
select ok(not has_function_privilege('public', 'pgflow.delete_flow_and_data(text)', 'execute'),
  'PUBLIC loses EXECUTE again');

select * from finish();
rollback;
