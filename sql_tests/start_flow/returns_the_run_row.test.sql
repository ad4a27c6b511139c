begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
create temp table returned as
  select * from pgflow.start_flow('sequential', '{"x": 1}'::jsonb);

-- TEST: exactly one row comes back
select is(
  (select count(*)::int from returned),
  1,
  'start_flow returns one row'
);

-- TEST: the returned row is the run row, column for column, then duplicate (false: this
-- call created it)
select results_eq(
  'select (r.*)::pgflow.runs from (select run_id, flow_slug, status, input, output, remaining_steps,
     started_at, completed_at, failed_at, cancelled_at, paused_at, rerun_of, idempotency_key,
     concurrency_key, deadline, queued_at, queue_seq, expired_at from returned) as r',
  'select r from pgflow.runs as r',
  'the returned row holds the stored pgflow.runs row (same columns, same order)'
);
select is((select duplicate from returned), false, 'duplicate is false for the call that created the run');

select * from finish();
rollback;
