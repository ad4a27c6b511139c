begin;
select plan(2);

-- TEST: the composite returned by start_tasks (upstream's fields in upstream's order; order matters for select *)
select has_composite('pgflow', 'step_task_record', 'pgflow.step_task_record exists');
select results_eq(
  $$ select * from pgflow_tests.table_columns('pgflow.step_task_record') $$,
  $$ values ('flow_slug', 'text'),
            ('run_id', 'uuid'),
            ('step_slug', 'text'),
            ('input', 'jsonb'),
            ('msg_id', 'bigint'),
            ('task_index', 'integer'),
            ('flow_input', 'jsonb') $$,
  'step_task_record fields are flow_slug, run_id, step_slug, input, msg_id, task_index, flow_input');

select * from finish();
rollback;
