begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root map with two tasks (3 attempts): task 0 started, task 1 queued; the run
-- failed (its messages archived)
select pgflow.create_flow('gone', max_attempts => 3);
select pgflow.add_step('gone', 'items', step_type => 'map');
select run_id from pgflow.start_flow('gone', '[1, 2]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 0);
select pgflow._fail_run(:'run_id', 'elsewhere');

-- TEST: the started task is failed without retry; the queued one is ignored
select results_eq(
  format($$select f.outcome, f.reason from (values (1, 0), (2, 1)) as v (n, i),
           lateral pgflow._fail_task(%L, 'items', v.i, 'late', null) as f order by v.n$$, :'run_id'),
  $$values ('failed'::text, 'run_failed'::text), ('ignored', 'run_failed')$$,
  'started task: failed / run_failed; queued task: ignored / run_failed'
);
select results_eq(
  format($$select task_index, status, error_message from pgflow.step_tasks where run_id = %L order by task_index$$, :'run_id'),
  $$values (0, 'failed'::text, 'late'::text), (1, 'queued', null)$$,
  'the started task is closed as failed with the error; the queued one is unchanged'
);
select is(pgflow_tests.queue_count('gone'), 0::bigint, 'no message comes back for a retry');

select * from finish();
rollback;
