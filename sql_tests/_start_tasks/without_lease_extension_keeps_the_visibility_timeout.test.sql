begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: first -> ...; the worker read first's message with a 300 s visibility timeout
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.ensure_worker('sequential');
select msg_id from pgmq.read('sequential', 300, 1) \gset

-- TEST: the task is claimed and returned
select results_eq(
  format($$select run_id, step_slug, task_index, msg_id from pgflow._start_tasks('sequential', array[%s::bigint],
           '11111111-1111-1111-1111-111111111111', false)$$, :msg_id),
  format($$values (%L::uuid, 'first'::text, 0, %s::bigint)$$, :'run_id', :msg_id),
  'the task behind the message is returned'
);
select results_eq(
  format($$select status, attempts_count, last_worker_id from pgflow.step_tasks where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('started'::text, 1, '11111111-1111-1111-1111-111111111111'::uuid)$$,
  'the task is started, attempts_count 1, for that worker'
);

-- TEST: extend_lease false leaves the reader's timeout (not timeout + 2 = 62 s)
select cmp_ok(
  pgflow_tests.message_vt_seconds('sequential', :msg_id),
  '>', 200::numeric,
  'the message keeps the 300 s visibility timeout it was read with'
);

select * from finish();
rollback;
