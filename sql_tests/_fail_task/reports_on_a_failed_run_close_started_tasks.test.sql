begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a root map with two tasks (3 attempts), two runs, task 0 started in both.
-- "legacy": a run failed before run failures cancelled their work (made by a direct UPDATE):
-- task 0 still started, task 1 still queued.
-- "failed": a run failed by _fail_run: both tasks are cancelled, their messages archived.
select pgflow.create_flow('gone', max_attempts => 3);
select pgflow.add_step('gone', 'items', step_type => 'map');
select run_id as legacy from pgflow.start_flow('gone', '[1, 2]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'legacy', 'items', 0);
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'legacy';
select run_id as failed from pgflow.start_flow('gone', '[1, 2]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'failed', 'items', 0);
select pgflow._fail_run(:'failed', 'elsewhere');
select to_jsonb(t) as cancelled_before from pgflow.step_tasks as t
  where run_id = :'failed' and task_index = 0 \gset

-- TEST: legacy state: the started task is failed without retry; the queued one is ignored
select results_eq(
  format($$select f.outcome, f.reason from (values (1, 0), (2, 1)) as v (n, i),
           lateral pgflow._fail_task(%L, 'items', v.i, 'late', null) as f order by v.n$$, :'legacy'),
  $$values ('failed'::text, 'run_failed'::text), ('ignored', 'run_failed')$$,
  'legacy failed run: started task: failed / run_failed; queued task: ignored / run_failed'
);
select results_eq(
  format($$select task_index, status, error_message from pgflow.step_tasks where run_id = %L order by task_index$$, :'legacy'),
  $$values (0, 'failed'::text, 'late'::text), (1, 'queued', null)$$,
  'legacy failed run: the started task is closed as failed with the error; the queued one is unchanged'
);

-- TEST: a task cancelled by its run's failure: the report is ignored, nothing is written
select results_eq(
  format($$select outcome, reason from pgflow._fail_task(%L, 'items', 0, 'late', null)$$, :'failed'),
  $$values ('ignored'::text, 'run_failed'::text)$$,
  'cancelled task of a failed run: ignored / run_failed'
);
select is(
  (select to_jsonb(t) from pgflow.step_tasks as t where run_id = :'failed' and task_index = 0),
  :'cancelled_before'::jsonb,
  'the cancelled task''s row is unchanged (still cancelled, no error, no failed_at)'
);

-- TEST: no message of either run is left or comes back
select is(pgflow_tests.queue_count('gone'), 0::bigint, 'no message comes back for a retry');

select * from finish();
rollback;
