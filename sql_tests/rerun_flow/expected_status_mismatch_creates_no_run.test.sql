begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a completed run
select pgflow.create_flow('one_step');
select pgflow.add_step('one_step', 'only');
select run_id from pgflow.start_flow('one_step', '{"x": 1}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'only');
create temp table snapshot as
select pgflow_tests.row_counts() as counts,
       (select count(*) from pgflow.run_events) as events,
       pgflow_tests.queue_count('one_step') as queued;

-- TEST: expected failed, the run is completed: the old run is reported, nothing done
select results_eq(
  format($$select * from pgflow.rerun_flow(%L, 'alice', 'r', 'failed')$$, :'run_id'),
  format($$values (%L::uuid, 'completed'::text, false, 'run is completed, not failed: nothing done'::text)$$, :'run_id'),
  'changed false with the old run''s id and status and why'
);

-- TEST: no new run, no event, no message
select is(pgflow_tests.row_counts(), (select counts from snapshot), 'no run was created');
select is((select count(*) from pgflow.run_events), (select events from snapshot), 'no run_events row was written');
select is(pgflow_tests.queue_count('one_step'), (select queued from snapshot), 'no message was sent');

-- TEST: a matching expected_status reruns
create temp table result as select * from pgflow.rerun_flow(:'run_id', 'alice', 'r', 'completed');
select results_eq(
  $$select r.status, r.changed, n.rerun_of from result as r join pgflow.runs as n on n.run_id = r.run_id$$,
  format($$values ('started'::text, true, %L::uuid)$$, :'run_id'),
  'expected completed, run completed: a new run is started'
);

select * from finish();
rollback;
