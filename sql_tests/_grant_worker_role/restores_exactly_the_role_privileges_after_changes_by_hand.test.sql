begin;
select plan(6);

-- SETUP: the role lost what it needs and was given more than it needs
revoke all on all tables in schema pgflow from pgflow_worker;
revoke all on all routines in schema pgflow from pgflow_worker;
revoke usage on schema pgflow from pgflow_worker;
grant delete on pgflow.flows to pgflow_worker;
grant insert, update on pgflow.runs to pgflow_worker;
grant update (status) on pgflow.step_tasks to pgflow_worker;
grant execute on function pgflow.cancel_run(uuid, text, text, text), pgflow.delete_flow_and_data(text) to pgflow_worker;

select pgflow._grant_worker_role();

-- TEST: USAGE on the schema again
select ok(has_schema_privilege('pgflow_worker', 'pgflow', 'usage'), 'pgflow_worker has USAGE on schema pgflow');

-- TEST: SELECT on exactly its tables
select is(pgflow_tests.relations_with('pgflow_worker', 'select'),
  array['deps', 'flows', 'installed_versions', 'permanently_stalled_tasks', 'run_events', 'runs', 'signals', 'step_states', 'step_tasks', 'step_waits', 'steps', 'test_clock', 'wait_states'],
  'pgflow_worker may read exactly its tables');

-- TEST: no write anywhere (the grants made by hand are gone, the column privilege too)
select is(
  pgflow_tests.relations_with('pgflow_worker', 'insert') || pgflow_tests.relations_with('pgflow_worker', 'update')
    || pgflow_tests.relations_with('pgflow_worker', 'delete') || pgflow_tests.relations_with('pgflow_worker', 'truncate'),
  '{}'::text[],
  'pgflow_worker may not INSERT, UPDATE, DELETE or TRUNCATE any pgflow table');
select is(has_column_privilege('pgflow_worker', 'pgflow.step_tasks', 'status', 'update'), false,
  'the column privilege given by hand is gone');

-- TEST: EXECUTE on exactly its functions
select is(pgflow_tests.executable_by('pgflow_worker'), array[
        '_now()',
        '_test_clock_now()',
        'cancelled_tasks(uuid[],text[],integer[])',
        'complete_task(uuid,text,integer,jsonb,integer)',
        'complete_tasks(uuid[],text[],integer[],jsonb[],integer[])',
        'deprecate_worker(uuid)',
        'enable_flow_notify(text,integer)',
        'ensure_flow_compiled(text,jsonb,boolean)',
        'fail_task(uuid,text,integer,text,integer)',
        'fail_tasks(uuid[],text[],integer[],text[],integer[],boolean[],text[])',
        'get_run_events(uuid)',
        'get_run_waits(uuid)',
        'get_step_signal(uuid,text)',
        'mark_worker_stopped(uuid)',
        'read_and_start_tasks(text,uuid,integer,integer,text[])',
        'read_tasks(text,integer,integer)',
        'recover_stalled_tasks()',
        'register_worker(uuid,text,text)',
        'requeue_stalled_tasks()',
        'start_tasks(text,bigint[],uuid)',
        'sync_flow_options(text,jsonb)',
        'sync_flow_schedule(text,text,jsonb)',
        'tick(integer)',
        'track_worker_function(text)',
        'version()',
        'worker_heartbeat(uuid)'
  ],
  'pgflow_worker may execute exactly its functions');

-- TEST: a second call changes nothing
select pgflow._grant_worker_role();
select is(cardinality(pgflow_tests.executable_by('pgflow_worker')), 26, 'the same functions after a second call');

select * from finish();
rollback;
