begin;
select plan(6);

-- SETUP: the role lost what it needs and was given more than it needs
revoke all on all tables in schema pgflow from pgflow_operator;
revoke all on all routines in schema pgflow from pgflow_operator;
revoke usage on schema pgflow from pgflow_operator;
grant delete on pgflow.flows to pgflow_operator;
grant insert, update on pgflow.runs to pgflow_operator;
grant update (status) on pgflow.step_tasks to pgflow_operator;
grant execute on function pgflow.complete_tasks(uuid[], text[], int[], jsonb[], int[]), pgflow.delete_flow_and_data(text) to pgflow_operator;

select pgflow._grant_operator_role();

-- TEST: USAGE on the schema again
select ok(has_schema_privilege('pgflow_operator', 'pgflow', 'usage'), 'pgflow_operator has USAGE on schema pgflow');

-- TEST: SELECT on exactly its tables
select is(pgflow_tests.relations_with('pgflow_operator', 'select'),
  array['deps', 'flows', 'installed_versions', 'permanently_stalled_tasks', 'run_events', 'runs', 'signals', 'step_states', 'step_tasks', 'step_waits', 'steps', 'test_clock', 'wait_states', 'workers'],
  'pgflow_operator may read exactly its tables');

-- TEST: no write anywhere (the grants made by hand are gone, the column privilege too)
select is(
  pgflow_tests.relations_with('pgflow_operator', 'insert') || pgflow_tests.relations_with('pgflow_operator', 'update')
    || pgflow_tests.relations_with('pgflow_operator', 'delete') || pgflow_tests.relations_with('pgflow_operator', 'truncate'),
  '{}'::text[],
  'pgflow_operator may not INSERT, UPDATE, DELETE or TRUNCATE any pgflow table');
select is(has_column_privilege('pgflow_operator', 'pgflow.step_tasks', 'status', 'update'), false,
  'the column privilege given by hand is gone');

-- TEST: EXECUTE on exactly its functions
select is(pgflow_tests.executable_by('pgflow_operator'), array[
        '_now()',
        '_test_clock_now()',
        'cancel_run(uuid,text,text,text)',
        'complete_step(uuid,text,jsonb,text,text,text)',
        'get_message_due_in(text,bigint[])',
        'get_queue_stats()',
        'get_run_counts(text,timestamp with time zone,integer)',
        'get_run_events(uuid)',
        'get_run_slot(uuid)',
        'get_run_waits(uuid)',
        'get_run_with_states(uuid)',
        'get_step_signal(uuid,text)',
        'get_step_stats(text,timestamp with time zone)',
        'pause_run(uuid,text,text,text)',
        'rerun_flow(uuid,text,text,text)',
        'resume_run(uuid,text,text,text)',
        'retry_run(uuid,text,text,text)',
        'send_signal(uuid,text,jsonb,text,text,text)',
        'skip_step(uuid,text,text,text,text)',
        'tick(integer)',
        'version()'
  ],
  'pgflow_operator may execute exactly its functions');

-- TEST: a second call changes nothing
select pgflow._grant_operator_role();
select is(cardinality(pgflow_tests.executable_by('pgflow_operator')), 21, 'the same functions after a second call');

select * from finish();
rollback;
