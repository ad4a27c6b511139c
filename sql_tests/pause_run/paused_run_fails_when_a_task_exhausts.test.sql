begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: two_roots (1 attempt): root_a started, root_b queued; the run paused (root_b parked)
select pgflow_tests.setup_flow('two_roots');
select run_id as run from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'root_a');
select count(*) from pgflow.pause_run(:'run', 'alice', null);

-- TEST: root_a fails for good: the paused run fails, no longer paused
select count(*) from pgflow.fail_task(:'run', 'root_a', 0, 'fatal');
select results_eq(
  format($$select status, failed_at = now(), paused_at from pgflow.runs where run_id = %L$$, :'run'),
  $$values ('failed'::text, true, null::timestamptz)$$,
  'the run is failed with failed_at now, paused_at cleared'
);
select results_eq(
  format($$select step_slug, status from pgflow.step_tasks where run_id = %L order by step_slug$$, :'run'),
  $$values ('root_a'::text, 'failed'::text), ('root_b', 'cancelled')$$,
  'root_a failed; the parked root_b is cancelled'
);
select is(pgflow_tests.queue_count('two_roots'), 0::bigint, 'the queue is empty');
select is(
  (select count(*) from pgflow.run_events where run_id = :'run' and event = 'run:failed'),
  1::bigint, 'run:failed is recorded');

select * from finish();
rollback;
