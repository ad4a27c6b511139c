begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: a failed run and a started run of the sequential flow
select pgflow_tests.setup_flow('sequential');
select run_id as failed from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'failed', 'first');
select run_id as started from pgflow.start_flow('sequential', '{}'::jsonb) \gset
create temp table snapshot as
select (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r) as runs,
       (select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s) as steps,
       (select count(*) from pgflow.step_tasks) as tasks,
       (select count(*) from pgflow.run_events) as events;

-- TEST: a failed run that the caller expects started: nothing done, reported as such
select results_eq(
  format($$select * from pgflow.retry_run(%L, 'alice', 'r', 'started')$$, :'failed'),
  format($$values (%L::uuid, 'failed'::text, false, 'run is failed, not started: nothing done'::text)$$, :'failed'),
  'expected started, run failed: changed false with the status found and why'
);

-- TEST: a started run expected failed (the run was retried meanwhile): no error, nothing done
select results_eq(
  format($$select * from pgflow.retry_run(%L, 'alice', 'r', 'failed')$$, :'started'),
  format($$values (%L::uuid, 'started'::text, false, 'run is started, not failed: nothing done'::text)$$, :'started'),
  'expected failed, run started: changed false, no 55000'
);

-- TEST: nothing was written
select is(
  (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r),
  (select runs from snapshot), 'the runs are unchanged');
select is(
  (select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s),
  (select steps from snapshot), 'the step states are unchanged');
select is(
  (select count(*) from pgflow.run_events) + (select count(*) from pgflow.step_tasks),
  (select events + tasks from snapshot), 'no event and no task was written');

-- TEST: a matching expected_status retries
select results_eq(
  format($$select status, changed, detail from pgflow.retry_run(%L, 'alice', 'r', 'failed')$$, :'failed'),
  $$values ('started'::text, true, null::text)$$,
  'expected failed, run failed: the run is retried'
);

select * from finish();
rollback;
