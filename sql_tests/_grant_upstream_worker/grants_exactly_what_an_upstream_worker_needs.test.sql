begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: the role lost what it needs and was given more than it needs
revoke all on all tables in schema pgflow from pgflow_upstream_worker;
revoke all on all routines in schema pgflow from pgflow_upstream_worker;
revoke usage on schema pgflow from pgflow_upstream_worker;
revoke usage on schema pgmq from pgflow_upstream_worker;
grant delete on pgflow.flows to pgflow_upstream_worker;
grant insert, update on pgflow.runs to pgflow_upstream_worker;
grant update (status) on pgflow.step_tasks to pgflow_upstream_worker;
grant select on pgflow.run_events to pgflow_upstream_worker;
grant execute on function pgflow.cancel_run(uuid, text, text, text), pgflow.delete_flow_and_data(text)
  to pgflow_upstream_worker;

select pgflow._grant_upstream_worker();

-- TEST: USAGE on schemas pgflow and pgmq
select results_eq(
  $$ select has_schema_privilege('pgflow_upstream_worker', 'pgflow', 'usage'),
            has_schema_privilege('pgflow_upstream_worker', 'pgmq', 'usage') $$,
  $$ values (true, true) $$,
  'USAGE on schemas pgflow and pgmq'
);

-- TEST: SELECT on the definitions, the run state and workers; nothing else of the schema
select is(
  pgflow_tests.relations_with('pgflow_upstream_worker', 'SELECT'),
  array['deps', 'flows', 'installed_versions', 'runs', 'step_states', 'step_tasks', 'steps', 'workers'],
  'SELECT on installed_versions, flows, steps, deps, runs, step_states, step_tasks and workers'
);

-- TEST: it writes workers only: it registers, heartbeats and deprecates its rows itself
select is(pgflow_tests.relations_with('pgflow_upstream_worker', 'INSERT'), array['workers'], 'INSERT on workers only');
select is(pgflow_tests.relations_with('pgflow_upstream_worker', 'UPDATE'), array['workers'], 'UPDATE on workers only');
select is(
  pgflow_tests.relations_with('pgflow_upstream_worker', 'DELETE')
    || pgflow_tests.relations_with('pgflow_upstream_worker', 'TRUNCATE'),
  '{}'::text[],
  'no DELETE or TRUNCATE anywhere in the schema (the DELETE on flows given before is gone)'
);
select is(
  has_column_privilege('pgflow_upstream_worker', 'pgflow.step_tasks', 'status', 'update'),
  false,
  'the column privilege given before is gone'
);

-- TEST: EXECUTE on upstream's worker functions only
select is(
  pgflow_tests.executable_by('pgflow_upstream_worker'),
  array['complete_task(uuid,text,integer,jsonb,integer)', 'ensure_flow_compiled(text,jsonb,boolean)',
        'fail_task(uuid,text,integer,text,integer)', 'mark_worker_stopped(uuid)',
        'start_tasks(text,bigint[],uuid)', 'track_worker_function(text)', 'version()'],
  'EXECUTE on version, track_worker_function, ensure_flow_compiled, start_tasks, complete_task, fail_task and mark_worker_stopped'
);

select * from finish();
rollback;
