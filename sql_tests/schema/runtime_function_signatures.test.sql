begin;
select plan(30);

-- TEST: upstream's runtime functions exist with the exact argument names, defaults and return type.
-- function_signature() lists every overload, so a stray overload fails the second check.
select has_function('pgflow', 'start_flow', array['text', 'jsonb', 'uuid', 'text', 'text', 'timestamp with time zone'],
  'pgflow.start_flow(text, jsonb, uuid, text, text, timestamptz) exists');
select is(pgflow_tests.function_signature('start_flow'),
  'start_flow(flow_slug text, input jsonb, run_id uuid DEFAULT NULL::uuid, idempotency_key text DEFAULT NULL::text, concurrency_key text DEFAULT NULL::text, deadline timestamp with time zone DEFAULT NULL::timestamp with time zone) returns SETOF pgflow.start_flow_result',
  'start_flow: upstream''s argument names and defaults, then pgflow-py''s trailing optional ones; rows of start_flow_result (the runs columns, then duplicate)');
select has_function('pgflow', 'start_ready_steps', array['uuid'],
  'pgflow.start_ready_steps(uuid) exists');
select is(pgflow_tests.function_signature('start_ready_steps'),
  'start_ready_steps(run_id uuid) returns void',
  'start_ready_steps: argument names, defaults and return type as upstream');
select has_function('pgflow', 'cascade_complete_taskless_steps', array['uuid'],
  'pgflow.cascade_complete_taskless_steps(uuid) exists');
select is(pgflow_tests.function_signature('cascade_complete_taskless_steps'),
  'cascade_complete_taskless_steps(run_id uuid) returns integer',
  'cascade_complete_taskless_steps: argument names, defaults and return type as upstream');
select has_function('pgflow', 'cascade_resolve_conditions', array['uuid'],
  'pgflow.cascade_resolve_conditions(uuid) exists');
select is(pgflow_tests.function_signature('cascade_resolve_conditions'),
  'cascade_resolve_conditions(run_id uuid) returns boolean',
  'cascade_resolve_conditions: argument names, defaults and return type as upstream');
select has_function('pgflow', 'start_tasks', array['text', 'bigint[]', 'uuid'],
  'pgflow.start_tasks(text, bigint[], uuid) exists');
select is(pgflow_tests.function_signature('start_tasks'),
  'start_tasks(flow_slug text, msg_ids bigint[], worker_id uuid) returns SETOF pgflow.step_task_record',
  'start_tasks: argument names, defaults and return type as upstream');
-- complete_task and fail_task: upstream's arguments, plus a trailing optional attempt (the
-- fence against late reports of an older attempt; upstream callers never pass it).
select has_function('pgflow', 'complete_task', array['uuid', 'text', 'integer', 'jsonb', 'integer'],
  'pgflow.complete_task(uuid, text, integer, jsonb, integer) exists');
select is(pgflow_tests.function_signature('complete_task'),
  'complete_task(run_id uuid, step_slug text, task_index integer, output jsonb, attempt integer DEFAULT NULL::integer) returns SETOF pgflow.step_tasks',
  'complete_task: upstream''s argument names and return type, plus attempt DEFAULT NULL');
select has_function('pgflow', 'fail_task', array['uuid', 'text', 'integer', 'text', 'integer'],
  'pgflow.fail_task(uuid, text, integer, text, integer) exists');
select is(pgflow_tests.function_signature('fail_task'),
  'fail_task(run_id uuid, step_slug text, task_index integer, error_message text, attempt integer DEFAULT NULL::integer) returns SETOF pgflow.step_tasks',
  'fail_task: upstream''s argument names and return type, plus attempt DEFAULT NULL');
select has_function('pgflow', 'maybe_complete_run', array['uuid'],
  'pgflow.maybe_complete_run(uuid) exists');
select is(pgflow_tests.function_signature('maybe_complete_run'),
  'maybe_complete_run(run_id uuid) returns void',
  'maybe_complete_run: argument names, defaults and return type as upstream');
select has_function('pgflow', '_cascade_force_skip_steps', array['uuid', 'text', 'text'],
  'pgflow._cascade_force_skip_steps(uuid, text, text) exists');
select is(pgflow_tests.function_signature('_cascade_force_skip_steps'),
  '_cascade_force_skip_steps(run_id uuid, step_slug text, skip_reason text) returns integer',
  '_cascade_force_skip_steps: argument names, defaults and return type as upstream');
select has_function('pgflow', '_archive_task_message', array['uuid', 'text', 'integer'],
  'pgflow._archive_task_message(uuid, text, integer) exists');
select is(pgflow_tests.function_signature('_archive_task_message'),
  '_archive_task_message(p_run_id uuid, p_step_slug text, p_task_index integer) returns void',
  '_archive_task_message: argument names, defaults and return type as upstream');
select has_function('pgflow', 'set_vt_batch', array['text', 'bigint[]', 'integer[]'],
  'pgflow.set_vt_batch(text, bigint[], integer[]) exists');
select is(pgflow_tests.function_signature('set_vt_batch'),
  'set_vt_batch(queue_name text, msg_ids bigint[], vt_offsets integer[]) returns TABLE(msg_id bigint, read_ct integer, enqueued_at timestamp with time zone, vt timestamp with time zone, message jsonb, headers jsonb)',
  'set_vt_batch: argument names, defaults and return type as upstream');
select has_function('pgflow', 'requeue_stalled_tasks', array[]::text[],
  'pgflow.requeue_stalled_tasks() exists');
select is(pgflow_tests.function_signature('requeue_stalled_tasks'),
  'requeue_stalled_tasks() returns integer',
  'requeue_stalled_tasks: argument names, defaults and return type as upstream');
select has_function('pgflow', 'setup_requeue_stalled_tasks_cron', array['text'],
  'pgflow.setup_requeue_stalled_tasks_cron(text) exists');
select is(pgflow_tests.function_signature('setup_requeue_stalled_tasks_cron'),
  'setup_requeue_stalled_tasks_cron(cron_interval text DEFAULT ''15 seconds''::text) returns text',
  'setup_requeue_stalled_tasks_cron: argument names, defaults and return type as upstream');
select has_function('pgflow', 'get_run_with_states', array['uuid'],
  'pgflow.get_run_with_states(uuid) exists');
select is(pgflow_tests.function_signature('get_run_with_states'),
  'get_run_with_states(run_id uuid) returns jsonb',
  'get_run_with_states: argument names, defaults and return type as upstream');
select has_function('pgflow', 'start_flow_with_states', array['text', 'jsonb', 'uuid'],
  'pgflow.start_flow_with_states(text, jsonb, uuid) exists');
select is(pgflow_tests.function_signature('start_flow_with_states'),
  'start_flow_with_states(flow_slug text, input jsonb, run_id uuid DEFAULT NULL::uuid) returns jsonb',
  'start_flow_with_states: argument names, defaults and return type as upstream');

select * from finish();
rollback;
