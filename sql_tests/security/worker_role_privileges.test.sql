begin;
select plan(5);

-- TEST: pgflow_worker may call exactly what a worker calls (README "Security")
select ok(has_schema_privilege('pgflow_worker', 'pgflow', 'usage'), 'pgflow_worker has USAGE on schema pgflow');
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
  'pgflow_worker may execute exactly the worker functions');

-- TEST: it reads definitions and run state, and writes no table
select is(pgflow_tests.relations_with('pgflow_worker', 'select'),
  array['deps', 'flows', 'installed_versions', 'permanently_stalled_tasks', 'run_events', 'runs', 'signals',
        'step_states', 'step_tasks', 'step_waits', 'steps', 'test_clock', 'wait_states'],
  'pgflow_worker may read definitions, run state and the test clock (not workers, worker_functions, schedules)');
select is(
  pgflow_tests.relations_with('pgflow_worker', 'insert') || pgflow_tests.relations_with('pgflow_worker', 'update')
    || pgflow_tests.relations_with('pgflow_worker', 'delete') || pgflow_tests.relations_with('pgflow_worker', 'truncate'),
  '{}'::text[],
  'pgflow_worker may not INSERT, UPDATE, DELETE or TRUNCATE any pgflow table');

-- TEST: no pgmq privilege at all: queues are read through pgflow.read_tasks
select ok(not has_schema_privilege('pgflow_worker', 'pgmq', 'usage'), 'pgflow_worker has no USAGE on schema pgmq');

select * from finish();
rollback;
