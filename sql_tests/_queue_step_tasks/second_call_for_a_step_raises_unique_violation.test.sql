begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: the root step of a run is already queued (start_flow did it)
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: queuing the same step again raises the step_tasks primary key
select throws_ok(
  format($$select pgflow._queue_step_tasks('sequential', 0, array[%L]::uuid[], array['first'], array[1])$$, :'run_id'),
  '23505',
  'duplicate key value violates unique constraint "step_tasks_pkey"',
  'a second call for the same step raises unique_violation'
);

-- TEST: the failed call left nothing behind (its messages rolled back with it)
select is(pgflow_tests.queue_count('sequential'), 1::bigint, 'the queue still holds one message');
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id'),
  1,
  'still one task'
);

select * from finish();
rollback;
