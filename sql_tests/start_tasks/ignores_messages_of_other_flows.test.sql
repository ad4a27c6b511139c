begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: two flows, each with one queued root task. Message ids are per queue, so both
-- tasks have the same msg_id.
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.setup_flow('root_map');
select run_id as seq_run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as map_run from pgflow.start_flow('root_map', '[1]'::jsonb) \gset
select pgflow_tests.ensure_worker('sequential');
select is(
  pgflow_tests.task_msg_id(:'seq_run', 'first'),
  pgflow_tests.task_msg_id(:'map_run', 'items', 0),
  'precondition: both tasks carry the same message id (one sequence per queue)'
);

-- TEST: ids are matched only against tasks of the given flow
select results_eq(
  format($$select flow_slug, run_id from pgflow.start_tasks('sequential', array[%s::bigint],
           '11111111-1111-1111-1111-111111111111'::uuid)$$,
         pgflow_tests.task_msg_id(:'seq_run', 'first')),
  format($$values ('sequential'::text, %L::uuid)$$, :'seq_run'),
  'only the task of the given flow is started'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'map_run'),
  'queued',
  'the other flow''s task with the same message id stays queued'
);

select * from finish();
rollback;
