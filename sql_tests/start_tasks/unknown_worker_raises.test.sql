begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: the worker must be registered (last_worker_id references pgflow.workers)
select throws_ok(
  format($$select * from pgflow.start_tasks('sequential', array[%s::bigint],
           '99999999-9999-9999-9999-999999999999'::uuid)$$,
         pgflow_tests.task_msg_id(:'run_id', 'first')),
  '23503',
  null,
  'an unregistered worker_id raises a foreign key violation'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'run_id'),
  'queued',
  'the task stays queued'
);

select * from finish();
rollback;
