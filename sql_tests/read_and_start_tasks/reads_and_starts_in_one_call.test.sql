begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: a root map over three elements; a registered worker
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[10, 20, 30]') \gset
select pgflow_tests.ensure_worker('root_map') as worker \gset

-- TEST: up to qty messages are read and their tasks claimed, with inputs and attempts
select results_eq(
  format($$select read_ct, message ->> 'step_slug', run_id, step_slug, task_index, input, flow_input, attempts_count
           from pgflow.read_and_start_tasks('root_map', %L, 2, 30)$$, :'worker'),
  format($$values (1, 'items'::text, %1$L::uuid, 'items'::text, 0, '10'::jsonb, null::jsonb, 1),
                  (1, 'items', %1$L::uuid, 'items', 1, '20'::jsonb, null::jsonb, 1)$$, :'run_id'),
  'two messages read, both tasks claimed with their element as input and attempt 1'
);
select results_eq(
  format($$select status, last_worker_id from pgflow.step_tasks where run_id = %L and task_index < 2 order by task_index$$, :'run_id'),
  format($$values ('started'::text, %1$L::uuid), ('started', %1$L::uuid)$$, :'worker'),
  'the tasks are started by the worker'
);
select ok(
  pgflow_tests.message_vt_seconds('root_map', pgflow_tests.task_msg_id(:'run_id', 'items', 0)) > 60,
  'the claimed message is hidden for the task timeout + 2 s (the lease), not vt'
);
select is(pgflow_tests.visible_count('root_map'), 1::bigint, 'one message stays visible');

-- TEST: a second worker call gets the rest; then nothing is left
select is((select count(*)::int from pgflow.read_and_start_tasks('root_map', :'worker', 10, 30)), 1,
  'the third message comes next');
select is((select count(*)::int from pgflow.read_and_start_tasks('root_map', :'worker', 10, 30)), 0,
  'nothing is visible any more');

select * from finish();
rollback;
