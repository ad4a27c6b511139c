begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{"user": "ann"}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'first') as msg_id \gset
select pgflow_tests.ensure_worker('sequential');

-- TEST: the full record of a root single task
select results_eq(
  format($$select * from pgflow.start_tasks('sequential', array[%s::bigint],
           '11111111-1111-1111-1111-111111111111'::uuid)$$, :'msg_id'),
  format($$select 'sequential'::text, %L::uuid, 'first'::text, '{}'::jsonb, %s::bigint, 0,
                  '{"user": "ann"}'::jsonb$$, :'run_id', :'msg_id'),
  'root single step: input {} and flow_input = run input (fields in step_task_record order)'
);

select * from finish();
rollback;
