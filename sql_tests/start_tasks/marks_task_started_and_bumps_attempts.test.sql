begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.ensure_worker('sequential', '22222222-2222-2222-2222-222222222222'::uuid);
select count(*) from pgflow.start_tasks(
  'sequential',
  array[pgflow_tests.task_msg_id(:'run_id', 'first')],
  '22222222-2222-2222-2222-222222222222'::uuid
);

-- TEST: the task is started by that worker, attempt 1
select results_eq(
  format($$select status, attempts_count, started_at is not null, last_worker_id
           from pgflow.step_tasks where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('started'::text, 1, true, '22222222-2222-2222-2222-222222222222'::uuid)$$,
  'status started, attempts_count 1, started_at set, last_worker_id = worker_id'
);

-- TEST: a task put back in the queue (as a retry does) is started again with attempt 2
update pgflow.step_tasks set status = 'queued', started_at = null
where run_id = :'run_id' and step_slug = 'first';
select count(*) from pgflow.start_tasks(
  'sequential',
  array[pgflow_tests.task_msg_id(:'run_id', 'first')],
  '22222222-2222-2222-2222-222222222222'::uuid
);
select is(
  (select attempts_count from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  2,
  'starting the task again bumps attempts_count to 2'
);

-- TEST: the step and run are untouched
select is(
  (select remaining_tasks from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  1,
  'remaining_tasks is unchanged by starting a task'
);

select * from finish();
rollback;
