begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a started task
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');
select pgflow._lock_task_reports(array[:'run_id'::uuid, gen_random_uuid()], array['first', 'nope'], array[0, 0]);

-- TEST: the run, its step state and its task are locked FOR UPDATE by this transaction
-- (row locks show as tuple-level: pgrowlocks is not installed, so look at the xmax)
select is(
  (select xmax::text::bigint from pgflow.runs where run_id = :'run_id'),
  txid_current() % 4294967296,
  'the run row is locked by this transaction'
);
select is(
  (select xmax::text::bigint from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  txid_current() % 4294967296,
  'the step state row is locked by this transaction'
);
select is(
  (select xmax::text::bigint from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  txid_current() % 4294967296,
  'the task row is locked by this transaction'
);

select * from finish();
rollback;
