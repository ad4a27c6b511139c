begin;
select plan(6);

-- SETUP: the role lost what it needs and was given more than it needs
revoke all on all tables in schema pgflow from pgflow_client;
revoke all on all routines in schema pgflow from pgflow_client;
revoke usage on schema pgflow from pgflow_client;
grant delete on pgflow.flows to pgflow_client;
grant insert, update on pgflow.runs to pgflow_client;
grant update (status) on pgflow.step_tasks to pgflow_client;
grant execute on function pgflow.cancel_run(uuid, text, text, text), pgflow.delete_flow_and_data(text) to pgflow_client;

select pgflow._grant_client_role();

-- TEST: USAGE on the schema again
select ok(has_schema_privilege('pgflow_client', 'pgflow', 'usage'), 'pgflow_client has USAGE on schema pgflow');

-- TEST: SELECT on exactly its tables
select is(pgflow_tests.relations_with('pgflow_client', 'select'),
  array['deps', 'flows', 'installed_versions', 'permanently_stalled_tasks', 'run_events', 'runs', 'signals', 'step_states', 'step_tasks', 'step_waits', 'steps', 'test_clock', 'wait_states'],
  'pgflow_client may read exactly its tables');

-- TEST: no write anywhere (the grants made by hand are gone, the column privilege too)
select is(
  pgflow_tests.relations_with('pgflow_client', 'insert') || pgflow_tests.relations_with('pgflow_client', 'update')
    || pgflow_tests.relations_with('pgflow_client', 'delete') || pgflow_tests.relations_with('pgflow_client', 'truncate'),
  '{}'::text[],
  'pgflow_client may not INSERT, UPDATE, DELETE or TRUNCATE any pgflow table');
select is(has_column_privilege('pgflow_client', 'pgflow.step_tasks', 'status', 'update'), false,
  'the column privilege given by hand is gone');

-- TEST: EXECUTE on exactly its functions
select is(pgflow_tests.executable_by('pgflow_client'), array[
        '_now()',
        '_test_clock_now()',
        'get_run_counts(text,timestamp with time zone,integer)',
        'get_run_events(uuid)',
        'get_run_slot(uuid)',
        'get_run_waits(uuid)',
        'get_run_with_states(uuid)',
        'get_step_signal(uuid,text)',
        'get_step_stats(text,timestamp with time zone)',
        'send_signal(uuid,text,jsonb,text,text,text)',
        'start_flow(text,jsonb,uuid,text,text,timestamp with time zone)',
        'start_flow_with_states(text,jsonb,uuid)',
        'version()'
  ],
  'pgflow_client may execute exactly its functions');

-- TEST: a second call changes nothing
select pgflow._grant_client_role();
select is(cardinality(pgflow_tests.executable_by('pgflow_client')), 13, 'the same functions after a second call');

select * from finish();
rollback;
