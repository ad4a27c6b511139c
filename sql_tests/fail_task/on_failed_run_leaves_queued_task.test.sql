begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a queued task of a failed run
select pgflow.create_flow('failed_run_q', max_attempts => 3);
select pgflow.add_step('failed_run_q', 'work');
select run_id from pgflow.start_flow('failed_run_q', '{}'::jsonb) \gset
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'run_id';

-- TEST: only a started task is marked failed
select results_eq(
  format($$select status, error_message from pgflow.fail_task(%L, 'work', 0, 'x')$$, :'run_id'),
  $$values ('queued'::text, null::text)$$,
  'a queued task of a failed run is returned unchanged'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'run_id'),
  'queued',
  'the task stays queued'
);

select * from finish();
rollback;
