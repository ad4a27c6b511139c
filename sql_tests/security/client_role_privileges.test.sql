begin;
select plan(5);

-- TEST: pgflow_client starts runs and reads their state (README "Security")
select ok(has_schema_privilege('pgflow_client', 'pgflow', 'usage'), 'pgflow_client has USAGE on schema pgflow');
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
  'pgflow_client may execute exactly start_flow, start_flow_with_states, get_run_with_states, get_run_slot, get_run_events, send_signal, get_step_signal, get_run_waits, get_step_stats, get_run_counts, version, _now (no run-control verb)');
select is(pgflow_tests.relations_with('pgflow_client', 'select'),
  array['deps', 'flows', 'installed_versions', 'permanently_stalled_tasks', 'run_events', 'runs',
        'signals', 'step_states', 'step_tasks', 'step_waits', 'steps', 'test_clock', 'wait_states'],
  'pgflow_client may read definitions, run state and the test clock (not workers, worker_functions, schedules)');
select is(
  pgflow_tests.relations_with('pgflow_client', 'insert') || pgflow_tests.relations_with('pgflow_client', 'update')
    || pgflow_tests.relations_with('pgflow_client', 'delete') || pgflow_tests.relations_with('pgflow_client', 'truncate'),
  '{}'::text[],
  'pgflow_client may not INSERT, UPDATE, DELETE or TRUNCATE any pgflow table');
select ok(not pg_has_role('pgflow_client', 'pgflow_worker', 'member')
          and not pg_has_role('pgflow_worker', 'pgflow_client', 'member'),
  'neither role is a member of the other');

select * from finish();
rollback;
